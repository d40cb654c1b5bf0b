package io.starintel.lease.worker.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.test.TestServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The worker API's answer to a timeout after submission, on two assembled applications (the auto-configured Redis
 * store, audit and worker API over real HTTP), one reaching real Redis through a proxy that forwards requests and
 * drops replies, the other directly: the acquire commits on the server, the proxied application answers 503
 * {@code lease_outcome_unknown} (retryable, with a retry hint) and audits exactly that; a resolve by the same request
 * id on the other application returns the committed lease, as does the retried acquire.
 *
 * <p>Replies are dropped only once no background call of the proxied application is in flight: a call whose reply
 * is dropped keeps its store connection until the client's timeout, and the acquire then needs a new connection,
 * whose handshake the proxy cannot complete either; the store rightly refuses before submission
 * ({@code lease_backend_unavailable}), which is not the scenario under test. So the proxied application runs no
 * expiry sweeper, and the program report its first acquire sends ({@code ProgramRegistry}) is awaited on the server
 * and followed by a second warm-up before replies are dropped. A refusal before submission is still checked to have
 * committed nothing, and the scenario then runs again on a fresh proxied application (at most {@value #ATTEMPTS}
 * times).
 */
class WorkerOutcomeUnknownTests {

	/** Fresh proxied applications tried before the test fails (each refusal before submission is checked too). */
	private static final int ATTEMPTS = 3;

	/** The application as a user assembles it: auto-configuration only, plus a sink that keeps the audit events. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		RecordedAuditEvents recordedAuditEvents() {
			return new RecordedAuditEvents();
		}

	}

	@Test
	void aLostReplyIsOutcomeUnknown503AndResolveReturnsTheCommittedLease() throws IOException {
		URI redis = TestServers.redisUri();
		Map<String, Object> credentials = new LinkedHashMap<>();
		String program = WorkerTestApplication.register((name, value) -> credentials.put(name, value.get()));
		try (ConfigurableApplicationContext direct = start(credentials, redis.toString(), true)) {
			WorkerHttp other = http(direct);
			ProgramReports reports = new ProgramReports(direct.getBean(StringRedisTemplate.class), program);
			List<String> refusals = new ArrayList<>();
			for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
				String refusal = lostReplyIsOutcomeUnknown(redis, credentials, other, reports);
				if (refusal == null) {
					return;
				}
				refusals.add(refusal);
			}
			throw new AssertionError("in " + ATTEMPTS + " attempts the proxied application never submitted the "
					+ "acquire; it refused before submission each time (nothing committed): " + refusals);
		}
	}

	/**
	 * One attempt on a fresh proxied application: {@code null} when the acquire was submitted and its reply lost
	 * (then every assertion of the scenario has held); the answer when the application refused it before
	 * submission: then it must be {@code lease_backend_unavailable} and nothing may have been committed.
	 */
	private @Nullable String lostReplyIsOutcomeUnknown(URI redis, Map<String, Object> credentials, WorkerHttp other,
			ProgramReports reports) throws IOException {
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(redis.getHost(), redis.getPort()));
				ConfigurableApplicationContext proxied = start(credentials, "redis://127.0.0.1:" + proxy.port(),
						false)) {
			WorkerHttp throughProxy = http(proxied);
			RecordedAuditEvents audit = proxied.getBean(RecordedAuditEvents.class);
			// warm-up through the proxy while it forwards replies (the library is loaded on the server); the first
			// acquire also reports the program in the background: await that report on the server, then warm up once
			// more, so that its reply has come back through the proxy before replies are dropped
			long beforeWarmUp = reports.serverTimeMillis();
			WorkerHttp.Reply warm = acquire(throughProxy, WorkerApiTests.target(), WorkerApiTests.rid(),
					Instant.now().plusSeconds(5));
			assertThat(warm.status()).as(warm.body()).isEqualTo(200);
			await("the proxied application's program report reached the server").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> reports.reportedSince(beforeWarmUp));
			WorkerHttp.Reply warmAgain = acquire(throughProxy, WorkerApiTests.target(), WorkerApiTests.rid(),
					Instant.now().plusSeconds(5));
			assertThat(warmAgain.status()).as(warmAgain.body()).isEqualTo(200);

			proxy.dropReplies(true);
			long sentBefore = proxy.forwardedRequestBytes();
			long droppedBefore = proxy.droppedReplyBytes();
			String target = WorkerApiTests.target();
			String requestId = WorkerApiTests.rid();
			WorkerHttp.Reply unknown = acquire(throughProxy, target, requestId, Instant.now().plusMillis(700));
			assertThat(unknown.status()).as(unknown.body()).isEqualTo(503);
			if (!"lease_outcome_unknown".equals(unknown.code())) {
				// refused before submission: allowed only when the server committed nothing
				assertThat(unknown.code()).as(unknown.body()).isEqualTo("lease_backend_unavailable");
				WorkerHttp.Reply resolved = resolve(other, target, requestId);
				assertThat(resolved.status()).as("nothing committed: " + resolved.body()).isEqualTo(404);
				return unknown.body();
			}
			assertThat(unknown.json().path("retryable").asBoolean()).isTrue();
			assertThat(unknown.json().path("retry_after_ms").asLong()).isPositive();
			assertThat(unknown.json().has("lease")).isFalse();
			assertThat(proxy.forwardedRequestBytes()).as("the request was submitted").isGreaterThan(sentBefore);
			await("the server answered the command whose reply was dropped").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> proxy.droppedReplyBytes() > droppedBefore);
			// one audit event for the request, with the code the caller was answered
			String correlation = unknown.json().path("correlation_id").asString();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(audit.events)
					.filteredOn((event) -> correlation.equals(event.correlationId()))
					.extracting((event) -> event.eventType().wireName() + ":" + event.resultCode().wireName())
					.containsExactly("target_lease_acquire:lease_outcome_unknown"));

			WorkerHttp.Reply resolved = resolve(other, target, requestId);
			assertThat(resolved.status()).as(resolved.body()).isEqualTo(200);
			assertThat(resolved.code()).isEqualTo("lease_acquired");
			assertThat(resolved.json().path("current_state").asString()).isEqualTo("active");
			JsonNode lease = resolved.json().path("lease");
			assertThat(lease.path("lock_identity").path("target_id").asString()).isEqualTo(target);
			assertThat(lease.path("fencing_token").asLong()).isPositive();
			// the retried acquire (same request id, same body) returns the same committed lease
			WorkerHttp.Reply retried = acquire(other, target, requestId, Instant.now().plusSeconds(5));
			assertThat(retried.status()).as(retried.body()).isEqualTo(200);
			assertThat(retried.json().path("replayed").asBoolean()).isTrue();
			assertThat(retried.json().path("lease").path("lease_id").asString())
				.isEqualTo(lease.path("lease_id").asString());
			assertThat(retried.json().path("lease").path("fencing_token").asLong())
				.isEqualTo(lease.path("fencing_token").asLong());
			return null;
		}
	}

	private static WorkerHttp.Reply resolve(WorkerHttp http, String target, String requestId) {
		ObjectNode resolve = WorkerHttp.JSON.createObjectNode();
		resolve.put("service_instance_id", "inst-u");
		resolve.set("lock_identity", WorkerApiTests.identity(target));
		resolve.put("operation", "acquire");
		resolve.put("request_id", requestId);
		return http.post("/lease/v1/leases/resolve", resolve.toString(), WorkerApiTests.A);
	}

	/**
	 * The store's registry of programs with leases, read on the server: the key is the documented one
	 * (docs/ARCHITECTURE.md, "Key layout"), the member {@code tenant US program}, its score the report's server time.
	 */
	private record ProgramReports(StringRedisTemplate redis, String program) {

		private static final String KEY = LockIdentity.KEY_PREFIX + "programs";

		long serverTimeMillis() {
			Long time = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
			assertThat(time).isNotNull();
			return time;
		}

		boolean reportedSince(long serverTimeMillis) {
			Double score = this.redis.opsForZSet().score(KEY, WorkerTestApplication.TENANT + "\u001f" + this.program);
			return score != null && score >= serverTimeMillis;
		}

	}

	/**
	 * @param sweeper whether the expiry sweeper runs (not in the proxied application: a sweep call in flight when the
	 * replies are dropped would keep its connection)
	 */
	private static ConfigurableApplicationContext start(Map<String, Object> credentials, String redisUrl,
			boolean sweeper) {
		Map<String, Object> properties = new LinkedHashMap<>(credentials);
		properties.put("server.port", "0");
		properties.put("starintel.lease.sweeper.enabled", String.valueOf(sweeper));
		properties.put("spring.data.redis.url", redisUrl);
		// as arguments: they take precedence over the test application.properties, as an operator's would
		String[] arguments = properties.entrySet()
			.stream()
			.map((entry) -> "--" + entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new);
		return new SpringApplicationBuilder(App.class).bannerMode(Banner.Mode.OFF).run(arguments);
	}

	private static WorkerHttp http(ConfigurableApplicationContext app) {
		return new WorkerHttp(app.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
	}

	private static WorkerHttp.Reply acquire(WorkerHttp http, String target, String requestId, Instant deadline) {
		ObjectNode body = WorkerApiTests.acquireBody(target, requestId, "inst-u");
		body.put("deadline_at", deadline.toString());
		body.put("ttl_ms", 60_000);
		return http.post("/lease/v1/leases/acquire", body.toString(), WorkerApiTests.A);
	}

}
