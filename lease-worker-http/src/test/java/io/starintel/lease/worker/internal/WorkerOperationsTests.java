package io.starintel.lease.worker.internal;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.http.internal.StrictJson;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.OffsetClock;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.http.Admission;
import io.starintel.lease.http.Credential;
import io.starintel.lease.worker.WorkerHttpProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker operations' failure mapping without HTTP: a store that throws after submission, a renewal answered after
 * the deadline, and admission control.
 */
class WorkerOperationsTests {

	static final String SECRET = "s3cret-unit";

	static final String AUTH = "Basic "
			+ Base64.getEncoder().encodeToString(("key_u:" + SECRET).getBytes(StandardCharsets.UTF_8));

	final List<AuditEvent> audit = new ArrayList<>();

	WorkerOperations operations(LeaseStore store, Clock clock, Admission admission) {
		Credential credential = new Credential("prn_u", "key_u", null,
				"{bcrypt}" + new BCryptPasswordEncoder(4).encode(SECRET), "worker", Set.of("targets:lease"),
				"tenant-u", "program-u", Set.of(), Set.of(), Set.of());
		WorkerHttpProperties properties = new WorkerHttpProperties(true, 8192, Duration.ofSeconds(5),
				Duration.ofHours(1), admission, List.of(credential));
		LeaseService service = new LeaseService(store, clock, Duration.ofSeconds(5), null, null);
		return new WorkerOperations(service, new WorkerCredentials(properties.credentials()),
				WorkerController.admission(admission), new WorkerAudit(this.audit::add, clock),
				LeasePolicy.defaults(), OperationClasses.defaults(), Duration.ofSeconds(5), properties, clock);
	}

	static final Admission OPEN = new Admission(16, 10_000, 10_000);

	static byte[] acquire(String requestId) {
		return ("{\"request_id\":\"" + requestId + "\",\"service_instance_id\":\"i1\",\"lock_identity\":"
				+ "{\"target_namespace\":\"ns\",\"target_id\":\"t1\",\"actor_name\":\"a\",\"workflow_name\":\"w\"},"
				+ "\"ttl_ms\":30000,\"execution_id\":\"e\",\"job_id\":\"j\",\"trace_id\":\"t\"}")
			.getBytes(StandardCharsets.UTF_8);
	}

	static JsonNode json(WorkerResponse response) {
		return StrictJson.MAPPER.readTree(response.body());
	}

	@Test
	void aStoreThatThrowsAfterSubmissionIsAnUnknownOutcomeNeverA500() {
		LeaseStore throwing = new DelegatingStore() {
			@Override
			public LeaseResult acquire(AcquireRequest request) {
				throw new IllegalStateException("connection reset by starintel:target-lease:v1:secret-key");
			}
		};
		WorkerResponse response = operations(throwing, Clock.systemUTC(), OPEN).handle(WorkerOperation.ACQUIRE, AUTH,
				null, acquire("r1"), "corr-1");
		assertThat(response.status()).isEqualTo(503);
		JsonNode body = json(response);
		assertThat(body.path("code").asString()).isIn("lease_outcome_unknown", "lease_backend_unavailable");
		assertThat(body.path("retryable").asBoolean()).isTrue();
		assertThat(response.body()).doesNotContain("starintel:target-lease").doesNotContain("connection reset");
	}

	@Test
	void aRenewalAnsweredAfterItsDeadlineIsAnUnknownOutcome() {
		AtomicLong offsetMs = new AtomicLong();
		Clock clock = new OffsetClock(offsetMs);
		LeaseStore slow = new DelegatingStore() {
			@Override
			public LeaseResult renew(RenewRequest request) {
				LeaseResult result = super.renew(request);
				offsetMs.set(60_000); // the reply "arrives" a minute later
				return result;
			}
		};
		WorkerOperations operations = operations(slow, clock, OPEN);
		JsonNode lease = json(operations.handle(WorkerOperation.ACQUIRE, AUTH, null, acquire("r1"), "c1")).path("lease");
		String renew = "{\"request_id\":\"r2\",\"service_instance_id\":\"i1\",\"lock_identity\":{\"target_namespace\":"
				+ "\"ns\",\"target_id\":\"t1\",\"actor_name\":\"a\",\"workflow_name\":\"w\"},\"lease_id\":\""
				+ lease.path("lease_id").asString() + "\",\"fencing_token\":" + lease.path("fencing_token").asLong()
				+ "}";
		WorkerResponse response = operations.handle(WorkerOperation.RENEW, AUTH, null,
				renew.getBytes(StandardCharsets.UTF_8), "c2");
		assertThat(response.status()).isEqualTo(503);
		assertThat(json(response).path("code").asString()).isEqualTo("lease_outcome_unknown");
	}

	@Test
	void admissionControlRefusesWithARetryHintBeforeTheStore() {
		InMemoryLeaseStore memory = new InMemoryLeaseStore(Clock.systemUTC(), LeasePolicy.defaults());
		WorkerOperations operations = operations(memory, Clock.systemUTC(),
				new Admission(16, 0.001, 1));
		assertThat(operations.handle(WorkerOperation.ACQUIRE, AUTH, null, acquire("r1"), "c1").status())
			.isEqualTo(200);
		WorkerResponse refused = operations.handle(WorkerOperation.ACQUIRE, AUTH, null, acquire("r2"), "c2");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(json(refused).path("code").asString()).isEqualTo("lease_rate_limited");
		assertThat(refused.retryAfterMs()).isPositive();
		assertThat(this.audit).anySatisfy((e) -> assertThat(e.correlationId()).isEqualTo("c2"));
	}

}
