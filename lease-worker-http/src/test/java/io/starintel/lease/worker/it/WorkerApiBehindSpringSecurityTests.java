package io.starintel.lease.worker.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.awaitility.Awaitility;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.test.RedisContainerConnection;
import io.starintel.lease.worker.autoconfigure.WorkerHttpSecurityAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker API in an application that has Spring Security and declares no security of its own, so that Spring
 * Boot's default web security (HTTP Basic against its generated user, every request authenticated) is on: the worker
 * API's own filter chain lets its requests through to it (its credentials, its envelopes, its audit), and the default
 * chain still protects every other path. Real HTTP, the auto-configured Redis store on real Redis.
 */
@SpringBootTest(classes = WorkerApiBehindSpringSecurityTests.SecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WorkerApiBehindSpringSecurityTests {

	/** A user's application: every auto-configuration, Spring Boot's web security included. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(RedisContainerConnection.class)
	static class SecuredApplication {

		@Bean
		RecordedAuditEvents recordedAuditEvents() {
			return new RecordedAuditEvents();
		}

	}

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		WorkerTestApplication.register(registry);
	}

	@LocalServerPort
	int port;

	@Autowired
	Map<String, SecurityFilterChain> chains;

	@Autowired
	RecordedAuditEvents audit;

	WorkerHttp http;

	@BeforeEach
	void client() {
		this.http = new WorkerHttp(this.port);
	}

	@Test
	void aWorkerAcquiresAndReleasesThroughSpringBootsDefaultSecurity() {
		assertThat(this.chains).containsKey(WorkerHttpSecurityAutoConfiguration.FILTER_CHAIN_BEAN).hasSizeGreaterThan(1);
		String auth = WorkerHttp.basic("key_worker_a", WorkerTestApplication.SECRET_A);
		String target = "t-" + UUID.randomUUID();
		WorkerHttp.Reply acquired = this.http.post("/lease/v1/leases/acquire",
				WorkerApiTests.acquireBody(target, "req-" + UUID.randomUUID(), "inst-1").toString(), auth);
		assertThat(acquired.status()).as(acquired.body()).isEqualTo(200);
		assertThat(acquired.code()).isEqualTo("lease_acquired");
		assertThat(acquired.headers()).doesNotContainKey("set-cookie");
		WorkerHttp.Reply released = this.http.post("/lease/v1/leases/release",
				WorkerApiTests.handleBody(acquired.json().path("lease"), "req-" + UUID.randomUUID(), "inst-1")
					.toString(),
				auth);
		assertThat(released.status()).as(released.body()).isEqualTo(200);
		assertThat(released.code()).isEqualTo("lease_released");
	}

	@Test
	void aCallerWithoutCredentialsGetsTheWorkerApisOwnRefusalNotSpringSecuritys() {
		WorkerHttp.Reply anonymous = this.http.post("/lease/v1/leases/acquire", "{}", null);
		assertThat(anonymous.status()).isEqualTo(401);
		assertThat(anonymous.code()).isEqualTo("invalid_credential");
		assertThat(anonymous.headers()).containsKey("x-correlation-id");
	}

	@Test
	void anUnparsableMultipartBodyIsTheWorkerApisRefusalHereToo() {
		String auth = WorkerHttp.basic("key_worker_a", WorkerTestApplication.SECRET_A);
		WorkerHttp.Reply malformed = this.http.send("POST", "/lease/v1/leases/acquire", "--x\r\n\r\n--x--", auth,
				"multipart/form-data; boundary=x", Map.of());
		assertThat(malformed.status()).as(malformed.body()).isEqualTo(400);
		assertThat(malformed.code()).isEqualTo("invalid_lease_request");
	}

	/**
	 * Spring Security's firewall refuses these paths before any filter chain runs; under the worker API they get the
	 * worker API's answer (400 {@code invalid_lease_request}, or 401 without credentials), one audit event each, and
	 * are never processed; elsewhere Spring Security's own answer stays.
	 */
	@Test
	void aPathTheFirewallRefusesGetsTheWorkerApisAnswerAndAuditAndIsNeverProcessed() {
		String auth = WorkerHttp.basic("key_worker_a", WorkerTestApplication.SECRET_A);
		String target = "t-" + UUID.randomUUID();
		List<String> correlations = new ArrayList<>();
		for (String path : List.of("/lease/v1/leases/acquire;x=1", "/lease/v1//leases/acquire",
				"/lease/v1/./leases/acquire", "/lease/v1/leases/acquire%25")) {
			String correlation = "corr-fw-" + UUID.randomUUID();
			correlations.add(correlation);
			WorkerHttp.Reply refused = this.http.send("POST", path,
					WorkerApiTests.acquireBody(target, "req-" + UUID.randomUUID(), "inst-1").toString(), auth,
					"application/json", Map.of("X-Correlation-Id", correlation));
			assertThat(refused.status()).as(path + ": " + refused.body()).isEqualTo(400);
			assertThat(refused.code()).as(path).isEqualTo("invalid_lease_request");
			assertThat(refused.json().path("correlation_id").asString()).isEqualTo(correlation);
		}
		String anonymousCorrelation = "corr-fw-" + UUID.randomUUID();
		correlations.add(anonymousCorrelation);
		WorkerHttp.Reply anonymous = this.http.send("POST", "/lease/v1/leases/acquire;x=1", "{}", null,
				"application/json", Map.of("X-Correlation-Id", anonymousCorrelation));
		assertThat(anonymous.status()).as(anonymous.body()).isEqualTo(401);
		assertThat(anonymous.code()).isEqualTo("invalid_credential");
		// none of the refused acquires was processed: the target is free
		WorkerHttp.Reply acquired = this.http.post("/lease/v1/leases/acquire",
				WorkerApiTests.acquireBody(target, "req-" + UUID.randomUUID(), "inst-2").toString(), auth);
		assertThat(acquired.status()).as(acquired.body()).isEqualTo(200);
		String last = acquired.json().path("correlation_id").asString();
		// the audit pipeline delivers in order: once the last request's event is in, every earlier one is
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> this.audit.events.stream().anyMatch((e) -> last.equals(e.correlationId())));
		for (String correlation : correlations) {
			List<AuditEvent> events = this.audit.events.stream()
				.filter((e) -> correlation.equals(e.correlationId()))
				.toList();
			assertThat(events).as(correlation).singleElement().satisfies((event) -> {
				assertThat(event.eventType().wireName()).isEqualTo("target_lease_inspect");
				assertThat(event.resultCode()).isIn(ResultCode.INVALID_LEASE_REQUEST, ResultCode.INVALID_CREDENTIAL);
			});
		}
		// elsewhere Spring Security's own answer: its plain 400, whose error page Boot's default chain guards (401)
		WorkerHttp.Reply elsewhere = this.http.send("GET", "/not-the-worker-api;x=1", null, null, null, Map.of());
		assertThat(elsewhere.status()).isIn(400, 401);
		assertThat(elsewhere.body()).doesNotContain("invalid_lease_request").doesNotContain("correlation_id");
	}

	@Test
	void everyOtherPathIsStillBehindTheDefaultSecurity() {
		WorkerHttp.Reply other = this.http.send("GET", "/not-the-worker-api", null, null, null, Map.of());
		assertThat(other.status()).isEqualTo(401);
		assertThat(other.headers().get("www-authenticate")).anySatisfy((value) -> assertThat(value).startsWith("Basic"));
	}

}
