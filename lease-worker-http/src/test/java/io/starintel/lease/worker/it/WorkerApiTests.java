package io.starintel.lease.worker.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker API over real HTTP on the auto-configured Redis store against real Redis: every operation, ownership,
 * idempotency, deadlines, scope and audit. Each test works on its own targets in a random program.
 */
@SpringBootTest(classes = WorkerTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.worker-http.admission.burst=100000",
				"starintel.lease.worker-http.admission.permits-per-second=100000" })
@Import(WorkerApiTests.RecordingSink.class)
class WorkerApiTests {

	static String program;

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		program = WorkerTestApplication.register(registry);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class RecordingSink {

		@Bean
		RecordedAuditEvents recordedAuditEvents() {
			return new RecordedAuditEvents();
		}

	}

	static final String A = WorkerHttp.basic("key_worker_a", WorkerTestApplication.SECRET_A);

	static final String B = WorkerHttp.basic("key_worker_b", WorkerTestApplication.SECRET_B);

	static final String READER = WorkerHttp.basic("key_reader", WorkerTestApplication.SECRET_READER);

	static final String NARROW = WorkerHttp.basic("key_narrow", WorkerTestApplication.SECRET_NARROW);

	static final String A2 = WorkerHttp.basic("key_worker_a2", WorkerTestApplication.SECRET_A2);

	@LocalServerPort
	int port;

	@Autowired
	LeaseService service;

	@Autowired
	RecordedAuditEvents audit;

	WorkerHttp http;

	@BeforeEach
	void client() {
		this.http = new WorkerHttp(this.port);
	}

	static ObjectNode identity(String target) {
		ObjectNode id = WorkerHttp.JSON.createObjectNode();
		id.put("target_namespace", "starintel-target");
		id.put("target_id", target);
		id.put("actor_name", "usernamegen");
		id.put("workflow_name", "default");
		return id;
	}

	static ObjectNode acquireBody(String target, String requestId, String instance) {
		ObjectNode body = WorkerHttp.JSON.createObjectNode();
		body.put("request_id", requestId);
		body.put("service_instance_id", instance);
		body.set("lock_identity", identity(target));
		body.put("ttl_ms", 30000);
		body.put("execution_id", "exec-1");
		body.put("job_id", "job-1");
		body.put("trace_id", "trace-1");
		return body;
	}

	static ObjectNode handleBody(JsonNode lease, String requestId, String instance) {
		ObjectNode body = WorkerHttp.JSON.createObjectNode();
		if (requestId != null) {
			body.put("request_id", requestId);
		}
		body.put("service_instance_id", instance);
		ObjectNode id = identity(lease.path("lock_identity").path("target_id").asString());
		body.set("lock_identity", id);
		body.put("lease_id", lease.path("lease_id").asString());
		body.put("fencing_token", lease.path("fencing_token").asLong());
		return body;
	}

	static String target() {
		return "t-" + UUID.randomUUID();
	}

	static String rid() {
		return "req-" + UUID.randomUUID();
	}

	WorkerHttp.Reply post(String operation, ObjectNode body, String auth) {
		return this.http.post("/lease/v1/leases/" + operation, body.toString(), auth);
	}

	JsonNode acquired(String target, String instance) {
		WorkerHttp.Reply reply = post("acquire", acquireBody(target, rid(), instance), A);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		return reply.json().path("lease");
	}

	@Test
	void acquireAnswersTheContractsSuccessEnvelopeWithTenantAndProgramFromTheCredential() {
		String target = target();
		WorkerHttp.Reply reply = post("acquire", acquireBody(target, rid(), "inst-1"), A);
		assertThat(reply.status()).isEqualTo(200);
		JsonNode json = reply.json();
		assertThat(json.path("status").asString()).isEqualTo("success");
		assertThat(json.path("code").asString()).isEqualTo("lease_acquired");
		assertThat(json.path("correlation_id").asString()).isNotEmpty();
		JsonNode lease = json.path("lease");
		assertThat(lease.path("lock_identity").path("tenant_id").asString()).isEqualTo(WorkerTestApplication.TENANT);
		assertThat(lease.path("lock_identity").path("program_id").asString()).isEqualTo(program);
		assertThat(lease.path("lock_identity").path("operation_class").asString()).isEqualTo("default");
		assertThat(lease.path("fencing_token").asLong()).isPositive();
		assertThat(lease.path("state").asString()).isEqualTo("active");
		assertThat(lease.path("ttl_ms").asLong()).isEqualTo(30000);
		assertThat(reply.body()).doesNotContain(LockIdentity.KEY_PREFIX).doesNotContain("prn_worker_a");
		// the record's owner is the authenticated caller
		LeaseResult inspected = inspect(lockIdentity(target));
		assertThat(inspected.lease().owner().principalId()).isEqualTo("prn_worker_a");
		assertThat(inspected.lease().owner().credentialId()).isEqualTo("key_worker_a");
		assertThat(inspected.lease().owner().serviceInstanceId()).isEqualTo("inst-1");
	}

	static LockIdentity lockIdentity(String target) {
		return LockIdentity.of(WorkerTestApplication.TENANT, program, "starintel-target", target, "usernamegen",
				"default", "default");
	}

	@Test
	void tenantOrProgramInTheBodyIsRejected() {
		ObjectNode body = acquireBody(target(), rid(), "inst-1");
		((ObjectNode) body.get("lock_identity")).put("tenant_id", "tenant-other");
		WorkerHttp.Reply reply = post("acquire", body, A);
		assertThat(reply.status()).isEqualTo(400);
		assertThat(reply.code()).isEqualTo("invalid_lease_request");
		ObjectNode withProgram = acquireBody(target(), rid(), "inst-1");
		((ObjectNode) withProgram.get("lock_identity")).put("program_id", program);
		assertThat(post("acquire", withProgram, A).status()).isEqualTo(400);
	}

	@Test
	void aRetriedAcquireReturnsTheOriginalLeaseAndAChangedBodyIsAnIdempotencyConflict() {
		String target = target();
		ObjectNode body = acquireBody(target, rid(), "inst-1");
		JsonNode first = post("acquire", body, A).json().path("lease");
		WorkerHttp.Reply retry = post("acquire", body, A);
		assertThat(retry.status()).isEqualTo(200);
		assertThat(retry.json().path("lease").path("lease_id").asString()).isEqualTo(first.path("lease_id").asString());
		assertThat(retry.json().path("lease").path("fencing_token").asLong())
			.isEqualTo(first.path("fencing_token").asLong());
		assertThat(retry.json().path("replayed").asBoolean()).isTrue();
		body.put("ttl_ms", 20000);
		WorkerHttp.Reply changed = post("acquire", body, A);
		assertThat(changed.status()).isEqualTo(409);
		assertThat(changed.code()).isEqualTo("idempotency_conflict");
		assertThat(changed.json().path("retryable").asBoolean()).isFalse();
	}

	@Test
	void aRequestIdReusedOnAnotherTargetIsAnIdempotencyConflictAndGrantsNothing() {
		String requestId = rid();
		String first = target();
		WorkerHttp.Reply granted = post("acquire", acquireBody(first, requestId, "inst-1"), A);
		assertThat(granted.status()).as(granted.body()).isEqualTo(200);
		String second = target();
		WorkerHttp.Reply reused = post("acquire", acquireBody(second, requestId, "inst-1"), A);
		assertThat(reused.status()).as(reused.body()).isEqualTo(409);
		assertThat(reused.code()).isEqualTo("idempotency_conflict");
		assertThat(reused.json().path("retryable").asBoolean()).isFalse();
		assertThat(inspect(lockIdentity(second)).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		// the original request still replays; another principal's request ids are its own
		assertThat(post("acquire", acquireBody(first, requestId, "inst-1"), A).json().path("replayed").asBoolean())
			.isTrue();
		assertThat(post("acquire", acquireBody(second, requestId, "inst-2"), B).status()).isEqualTo(200);
	}

	/** An inspect of the lease (its handle without the token) by instance {@code inst-1}. */
	private static ObjectNode inspectBody(JsonNode lease) {
		ObjectNode inspect = handleBody(lease, null, "inst-1");
		inspect.remove("fencing_token");
		return inspect;
	}

	/** A resolve of the acquire {@code requestId} of {@code target} by instance {@code inst-1}. */
	private static ObjectNode resolveAcquireBody(String target, String requestId) {
		ObjectNode resolve = WorkerHttp.JSON.createObjectNode();
		resolve.put("service_instance_id", "inst-1");
		resolve.set("lock_identity", identity(target));
		resolve.put("operation", "acquire");
		resolve.put("request_id", requestId);
		return resolve;
	}

	@Test
	void everyCredentialOfTheOwnerPrincipalOwnsItsLeaseForEveryOperation() {
		String target = target();
		String requestId = rid();
		JsonNode lease = post("acquire", acquireBody(target, requestId, "inst-1"), A).json().path("lease");
		ObjectNode inspect = inspectBody(lease);
		WorkerHttp.Reply inspected = post("inspect", inspect, A2);
		assertThat(inspected.status()).as(inspected.body()).isEqualTo(200);
		ObjectNode resolve = resolveAcquireBody(target, requestId);
		WorkerHttp.Reply resolved = post("resolve", resolve, A2);
		assertThat(resolved.status()).as(resolved.body()).isEqualTo(200);
		assertThat(resolved.json().path("lease").path("lease_id").asString())
			.isEqualTo(lease.path("lease_id").asString());
		assertThat(post("renew", handleBody(lease, rid(), "inst-1"), A2).code()).isEqualTo("lease_renewed");
		assertThat(post("authorize-commit", handleBody(lease, null, "inst-1"), A2).code())
			.isEqualTo("lease_commit_authorized");
		// another principal: lost and not found, for the mutations and the reads alike
		assertThat(post("renew", handleBody(lease, rid(), "inst-1"), B).code()).isEqualTo("lease_lost");
		assertThat(post("inspect", inspect, B).status()).isEqualTo(404);
		assertThat(post("resolve", resolve, B).status()).isEqualTo(404);
		assertThat(post("release", handleBody(lease, rid(), "inst-1"), A2).code()).isEqualTo("lease_released");
	}

	/**
	 * The audit events of a second credential of the owner principal name that credential (not the one that
	 * acquired), the service instance its request named, and for renew, commit and release the lease's trace,
	 * execution and job ids (contract: each event records the non-secret credential id, service instance id and those
	 * identifiers).
	 */
	@Test
	void auditEventsNameTheActingCredentialAndServiceInstance() {
		String target = target();
		String requestId = rid();
		JsonNode lease = post("acquire", acquireBody(target, requestId, "inst-1"), A).json().path("lease");
		ObjectNode inspect = inspectBody(lease);
		ObjectNode resolve = resolveAcquireBody(target, requestId);
		Map<String, String> sent = new LinkedHashMap<>();
		BiConsumer<String, WorkerHttp.Reply> send = (expected, reply) -> {
			assertThat(reply.code()).as(reply.body()).isEqualTo(expected);
			sent.put(reply.json().path("correlation_id").asString(), expected);
		};
		send.accept("lease_inspected", post("inspect", inspect, A2));
		send.accept("lease_acquired", post("resolve", resolve, A2));
		send.accept("lease_renewed", post("renew", handleBody(lease, rid(), "inst-1"), A2));
		send.accept("lease_commit_authorized", post("authorize-commit", handleBody(lease, null, "inst-1"), A2));
		send.accept("lease_released", post("release", handleBody(lease, rid(), "inst-1"), A2));
		send.accept("lease_lost", post("renew", handleBody(lease, rid(), "inst-1"), A2));
		List<AuditEvent> events = awaitEventsOf(sent.keySet());
		assertThat(events).extracting((e) -> e.resultCode().wireName()).containsExactlyElementsOf(sent.values());
		assertThat(events).allSatisfy((event) -> {
			assertThat(event.principalId()).isEqualTo("prn_worker_a");
			assertThat(event.credentialId()).isEqualTo("key_worker_a2");
			assertThat(event.serviceInstanceId()).isEqualTo("inst-1");
		});
		// renew, commit and release of the lease: its trace, execution and job ids
		assertThat(events.subList(2, 5)).allSatisfy((event) -> {
			assertThat(event.traceId()).isEqualTo("trace-1");
			assertThat(event.executionId()).isEqualTo("exec-1");
			assertThat(event.jobId()).isEqualTo("job-1");
		});
	}

	/**
	 * A renew, release or commit body may name the worker's trace, execution and job ids (optional, audit only): its
	 * audit event carries them also when the store answers without the lease (a refused renew or commit has no record
	 * to take them from); a malformed one is refused before anything is decided.
	 */
	@Test
	void holderRequestsNamingTheirIdsAreAuditedWithThemAlsoWhenRefused() {
		String target = target();
		JsonNode lease = post("acquire", acquireBody(target, rid(), "inst-1"), A).json().path("lease");
		assertThat(post("release", handleBody(lease, rid(), "inst-1"), A).code()).isEqualTo("lease_released");
		Map<String, String> sent = new LinkedHashMap<>();
		for (String operation : List.of("renew", "authorize-commit", "release")) {
			ObjectNode body = handleBody(lease, operation.equals("authorize-commit") ? null : rid(), "inst-1");
			body.put("trace_id", "trace-w").put("execution_id", "exec-w").put("job_id", "job-w");
			WorkerHttp.Reply reply = post(operation, body, A);
			assertThat(reply.code()).as(reply.body()).isEqualTo("lease_lost");
			sent.put(reply.json().path("correlation_id").asString(), operation);
		}
		List<AuditEvent> events = awaitEventsOf(sent.keySet());
		assertThat(events).allSatisfy((event) -> {
			assertThat(event.resultCode().wireName()).isEqualTo("lease_lost");
			assertThat(event.traceId()).isEqualTo("trace-w");
			assertThat(event.executionId()).isEqualTo("exec-w");
			assertThat(event.jobId()).isEqualTo("job-w");
			assertThat(event.credentialId()).isEqualTo("key_worker_a");
		});
		ObjectNode malformed = handleBody(lease, rid(), "inst-1");
		malformed.put("trace_id", "bad id with spaces");
		WorkerHttp.Reply refused = post("renew", malformed, A);
		assertThat(refused.status()).as(refused.body()).isEqualTo(400);
		assertThat(refused.code()).isEqualTo("invalid_lease_request");
		assertThat(refused.body()).contains("trace_id");
	}

	/** The audit events of the requests with these correlation ids, in their order, once every one is recorded. */
	private List<AuditEvent> awaitEventsOf(java.util.Collection<String> correlationIds) {
		return Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> correlationIds.stream()
				.map((id) -> this.audit.events.stream().filter((e) -> id.equals(e.correlationId())).findFirst())
				.flatMap(Optional::stream)
				.toList(), (found) -> found.size() == correlationIds.size());
	}

	@Test
	void aMaximumLifetimeBelowTheTtlIsMalformed() {
		String target = target();
		ObjectNode body = acquireBody(target, rid(), "inst-1");
		body.put("maximum_lifetime_ms", 1);
		WorkerHttp.Reply reply = post("acquire", body, A);
		assertThat(reply.status()).as(reply.body()).isEqualTo(400);
		assertThat(reply.code()).isEqualTo("invalid_lease_request");
		assertThat(reply.body()).contains("maximum_lifetime_ms");
		body.put("maximum_lifetime_ms", 29_999);
		assertThat(post("acquire", body, A).status()).isEqualTo(400);
		assertThat(inspect(lockIdentity(target)).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		body.put("maximum_lifetime_ms", 30_000);
		assertThat(post("acquire", body, A).status()).isEqualTo(200);
	}

	@Test
	void withoutAValidCredentialEveryRequestIsUnauthenticatedBeforeItIsJudgedMalformed() {
		String valid = acquireBody(target(), rid(), "inst-1").toString();
		String wrong = WorkerHttp.basic("key_worker_a", "wrong");
		for (String auth : Arrays.asList(null, wrong)) {
			List<WorkerHttp.Reply> replies = List.of(
					this.http.send("POST", "/lease/v1/leases/acquire", valid, auth, "text/plain", Map.of()),
					this.http.send("POST", "/lease/v1/leases/acquire?x=1", valid, auth, "application/json", Map.of()),
					this.http.send("POST", "/lease/v1/leases/acquire", "{\"a\":\"" + "x".repeat(9000) + "\"}",
							auth, "application/json", Map.of()),
					this.http.send("GET", "/lease/v1/leases/acquire", null, auth, null, Map.of()),
					this.http.send("POST", "/lease/v1/leases/nope", valid, auth, "application/json", Map.of()),
					this.http.send("POST", "/lease/v1/leases/acquire", "{", auth, "application/json", Map.of()));
			for (WorkerHttp.Reply reply : replies) {
				assertThat(reply.status()).as(reply.body()).isEqualTo(401);
				assertThat(reply.code()).isEqualTo("invalid_credential");
			}
		}
		// the same requests with a valid credential are malformed
		assertThat(this.http.send("POST", "/lease/v1/leases/acquire?x=1", valid, A, "application/json", Map.of())
			.status()).isEqualTo(400);
		assertThat(this.http.send("POST", "/lease/v1/leases/acquire", "{\"a\":\"" + "x".repeat(9000) + "\"}", A,
				"application/json", Map.of()).status()).isEqualTo(400);
	}

	@Test
	void aSecondWorkerGetsAConflictWithARetryHintAndABoundedWaitEndsAtItsBound() {
		String target = target();
		acquired(target, "inst-1");
		WorkerHttp.Reply conflict = post("acquire", acquireBody(target, rid(), "inst-2"), B);
		assertThat(conflict.status()).isEqualTo(409);
		assertThat(conflict.code()).isEqualTo("lease_conflict");
		assertThat(conflict.json().path("retryable").asBoolean()).isTrue();
		assertThat(conflict.json().path("retry_after_ms").asLong()).isPositive();
		assertThat(conflict.body()).doesNotContain("prn_worker_a").doesNotContain("inst-1");
		ObjectNode waiting = acquireBody(target, rid(), "inst-2");
		waiting.put("wait_ms", 300);
		assertThat(post("acquire", waiting, B).code()).isEqualTo("lease_conflict");
		waiting.put("wait_ms", 600_000);
		assertThat(post("acquire", waiting, B).status()).isEqualTo(400);
	}

	@Test
	void aBoundedWaitAcquiresOnceTheHolderReleases() throws Exception {
		String target = target();
		JsonNode lease = acquired(target, "inst-1");
		ObjectNode waiting = acquireBody(target, rid(), "inst-2");
		waiting.put("wait_ms", 9000);
		waiting.put("deadline_at", Instant.now().plusSeconds(30).toString());
		CompletableFuture<WorkerHttp.Reply> waiter = CompletableFuture
			.supplyAsync(() -> post("acquire", waiting, B));
		assertThat(post("release", handleBody(lease, rid(), "inst-1"), A).status()).isEqualTo(200);
		WorkerHttp.Reply reply = waiter.get(60, TimeUnit.SECONDS);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		assertThat(reply.json().path("lease").path("fencing_token").asLong())
			.isGreaterThan(lease.path("fencing_token").asLong());
	}

	@Test
	void renewReleaseAndInspectWorkOnlyForTheOwnLease() {
		String target = target();
		JsonNode lease = acquired(target, "inst-1");
		// another worker presenting the handle: lease_lost, never a hint of the owner
		WorkerHttp.Reply foreign = post("renew", handleBody(lease, rid(), "inst-1"), B);
		assertThat(foreign.status()).isEqualTo(409);
		assertThat(foreign.code()).isEqualTo("lease_lost");
		assertThat(post("release", handleBody(lease, rid(), "inst-1"), B).code()).isEqualTo("lease_lost");
		ObjectNode inspect = handleBody(lease, null, "inst-1");
		inspect.remove("fencing_token");
		WorkerHttp.Reply refused = post("inspect", inspect, B);
		assertThat(refused.status()).isEqualTo(404);
		// audited as answered: lease_not_found, without the other worker's lease id or token
		String refusedId = refused.json().path("correlation_id").asString();
		AuditEvent refusal = Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> this.audit.events.stream().filter((e) -> refusedId.equals(e.correlationId())).findFirst(),
					Optional::isPresent)
			.get();
		assertThat(refusal.eventType()).isEqualTo(AuditEventType.INSPECT);
		assertThat(refusal.resultCode()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(refusal.principalId()).isEqualTo("prn_worker_b");
		assertThat(refusal.leaseId()).isNull();
		assertThat(refusal.fencingToken()).isNull();
		// the wrong instance of the right worker: lease_lost too
		assertThat(post("renew", handleBody(lease, rid(), "inst-9"), A).code()).isEqualTo("lease_lost");
		WorkerHttp.Reply own = post("inspect", inspect, A);
		assertThat(own.status()).isEqualTo(200);
		assertThat(own.code()).isEqualTo("lease_inspected");
		ObjectNode renew = handleBody(lease, rid(), "inst-1");
		WorkerHttp.Reply renewed = post("renew", renew, A);
		assertThat(renewed.status()).isEqualTo(200);
		assertThat(renewed.code()).isEqualTo("lease_renewed");
		assertThat(renewed.json().path("lease").path("fencing_token").asLong())
			.isEqualTo(lease.path("fencing_token").asLong());
		// retried renew: the original result; changed handle: idempotency conflict
		assertThat(post("renew", renew, A).status()).isEqualTo(200);
		renew.put("service_instance_id", "inst-2");
		assertThat(post("renew", renew, A).code()).isEqualTo("idempotency_conflict");
		WorkerHttp.Reply released = post("release", handleBody(lease, rid(), "inst-1"), A);
		assertThat(released.code()).isEqualTo("lease_released");
		assertThat(released.json().path("lease").path("state").asString()).isEqualTo("released");
		assertThat(post("inspect", inspect, A).status()).isEqualTo(404);
		assertThat(post("renew", handleBody(lease, rid(), "inst-1"), A).code()).isEqualTo("lease_lost");
	}

	/**
	 * Renew with a new TTL: within policy it becomes the lease's ttl_ms and expires_at = renewed_at + ttl, capped by
	 * the original maximum lifetime; outside policy it is 400; a retry with another TTL is idempotency_conflict.
	 */
	@Test
	void renewWithANewTtlWithinPolicyAndTheMaximumLifetime() {
		String target = target();
		ObjectNode acquire = acquireBody(target, rid(), "inst-1");
		acquire.put("maximum_lifetime_ms", 120_000);
		JsonNode lease = post("acquire", acquire, A).json().path("lease");
		ObjectNode renew = handleBody(lease, rid(), "inst-1");
		renew.put("ttl_ms", 90_000);
		WorkerHttp.Reply longer = post("renew", renew, A);
		assertThat(longer.status()).as(longer.body()).isEqualTo(200);
		JsonNode renewed = longer.json().path("lease");
		assertThat(renewed.path("ttl_ms").asLong()).isEqualTo(90_000);
		assertThat(Instant.parse(renewed.path("expires_at").asString()))
			.isEqualTo(Instant.parse(renewed.path("renewed_at").asString()).plusMillis(90_000));
		assertThat(renewed.path("fencing_token").asLong()).isEqualTo(lease.path("fencing_token").asLong());
		// the same request id with another TTL is another request
		renew.put("ttl_ms", 60_000);
		assertThat(post("renew", renew, A).code()).isEqualTo("idempotency_conflict");
		// a TTL reaching past the maximum lifetime ends at acquired_at + maximum_lifetime_ms
		ObjectNode capped = handleBody(lease, rid(), "inst-1");
		capped.put("ttl_ms", 600_000);
		JsonNode end = post("renew", capped, A).json().path("lease");
		assertThat(Instant.parse(end.path("expires_at").asString()))
			.isEqualTo(Instant.parse(lease.path("acquired_at").asString()).plusMillis(120_000));
		for (long outside : new long[] { 1, 100, 600_001, -5, 0 }) {
			ObjectNode invalid = handleBody(lease, rid(), "inst-1");
			invalid.put("ttl_ms", outside);
			WorkerHttp.Reply reply = post("renew", invalid, A);
			assertThat(reply.status()).as(outside + " " + reply.body()).isEqualTo(400);
			assertThat(reply.body()).contains("ttl_ms");
		}
		ObjectNode text = handleBody(lease, rid(), "inst-1");
		text.put("ttl_ms", "90000");
		assertThat(post("renew", text, A).status()).isEqualTo(400);
		assertThat(inspect(lockIdentity(target)).lease().expiresAt())
			.isEqualTo(Instant.parse(end.path("expires_at").asString()));
	}

	@Test
	void theServiceInstanceHeaderIsAcceptedAndMustAgreeWithTheBody() {
		ObjectNode body = acquireBody(target(), rid(), "inst-1");
		body.remove("service_instance_id");
		assertThat(post("acquire", body, A).status()).isEqualTo(400);
		WorkerHttp.Reply reply = this.http.send("POST", "/lease/v1/leases/acquire", body.toString(), A,
				"application/json", Map.of("X-Service-Instance-Id", "inst-h"));
		assertThat(reply.status()).isEqualTo(200);
		body.put("request_id", rid());
		body.put("service_instance_id", "inst-other");
		assertThat(this.http.send("POST", "/lease/v1/leases/acquire", body.toString(), A, "application/json",
				Map.of("X-Service-Instance-Id", "inst-h")).status()).isEqualTo(400);
	}

	@Test
	void twoDifferentServiceInstanceHeadersAreRefusedNotGuessed() throws Exception {
		ObjectNode body = acquireBody(target(), rid(), "inst-1");
		body.remove("service_instance_id");
		assertThat(rawPost("/lease/v1/leases/acquire", body.toString(), "X-Service-Instance-Id: inst-1",
				"X-Service-Instance-Id: inst-2")).startsWith("http/1.1 400").contains("service_instance_id");
		body.put("request_id", rid());
		assertThat(rawPost("/lease/v1/leases/acquire", body.toString(), "X-Service-Instance-Id: inst-1",
				"X-Service-Instance-Id: inst-1")).as("the same value twice names one instance").startsWith("http/1.1 200");
	}

	/** A POST sent as written (headers a map cannot hold twice), answered as lower-case head and body text. */
	private String rawPost(String path, String body, String... headers) throws IOException {
		byte[] content = body.getBytes(StandardCharsets.UTF_8);
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(30_000);
			OutputStream out = socket.getOutputStream();
			out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + A
					+ "\r\nContent-Type: application/json\r\n" + String.join("\r\n", headers) + "\r\nContent-Length: "
					+ content.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
			out.write(content);
			out.flush();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
		}
	}

	@Test
	void resolveReturnsTheCallersOriginalResultAndNotFoundOtherwise() {
		String target = target();
		String requestId = rid();
		JsonNode lease = post("acquire", acquireBody(target, requestId, "inst-1"), A).json().path("lease");
		ObjectNode resolve = WorkerHttp.JSON.createObjectNode();
		resolve.put("service_instance_id", "inst-1");
		resolve.set("lock_identity", identity(target));
		resolve.put("operation", "acquire");
		resolve.put("request_id", requestId);
		WorkerHttp.Reply reply = post("resolve", resolve, A);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		assertThat(reply.json().path("lease").path("lease_id").asString()).isEqualTo(lease.path("lease_id").asString());
		assertThat(reply.json().path("current_state").asString()).isEqualTo("active");
		assertThat(post("resolve", resolve, B).status()).isEqualTo(404);
		resolve.put("request_id", rid());
		assertThat(post("resolve", resolve, A).status()).isEqualTo(404);
		resolve.put("operation", "revoke");
		assertThat(post("resolve", resolve, A).status()).isEqualTo(400);
	}

	@Test
	void authorizeCommitIsRefusedAfterAnAdministratorRevokesAndAReacquireGetsAHigherToken() {
		String target = target();
		JsonNode lease = acquired(target, "inst-1");
		ObjectNode commit = handleBody(lease, null, "inst-1");
		WorkerHttp.Reply authorized = post("authorize-commit", commit, A);
		assertThat(authorized.status()).isEqualTo(200);
		assertThat(authorized.code()).isEqualTo("lease_commit_authorized");
		assertThat(post("authorize-commit", commit, B).code()).isEqualTo("lease_lost");
		LeaseResult revoked = this.service
			.revoke(new AdminRequest(Operation.REVOKE, lockIdentity(target), rid(), Instant.now().plusSeconds(5),
					lease.path("lease_id").asString(), lease.path("fencing_token").asLong(), "prn_admin",
					"key_admin", "incident-1"));
		assertThat(revoked.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(post("authorize-commit", commit, A).code()).isEqualTo("lease_lost");
		assertThat(post("renew", handleBody(lease, rid(), "inst-1"), A).code()).isEqualTo("lease_lost");
		JsonNode again = acquired(target, "inst-1");
		assertThat(again.path("fencing_token").asLong()).isGreaterThan(lease.path("fencing_token").asLong());
	}

	@Test
	void deadlinesArePastBeforeSubmissionOrMalformed() {
		ObjectNode body = acquireBody(target(), rid(), "inst-1");
		body.put("deadline_at", Instant.now().minusSeconds(5).toString());
		WorkerHttp.Reply past = post("acquire", body, A);
		assertThat(past.status()).isEqualTo(408);
		assertThat(past.code()).isEqualTo("deadline_exceeded");
		for (String extreme : List.of("-292000000-01-01T00:00:00Z", "+292000000-01-01T00:00:00Z",
				"-1000000000-01-01T00:00:00Z", "+1000000000-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z",
				Instant.now().plusSeconds(3600).toString())) {
			body.put("deadline_at", extreme);
			WorkerHttp.Reply reply = post("acquire", body, A);
			assertThat(reply.status()).as(extreme + " " + reply.body()).isEqualTo(400);
		}
	}

	@Test
	void credentialsCapabilitiesAndScopeAreCheckedBeforeTheStore() {
		String target = target();
		WorkerHttp.Reply anonymous = post("acquire", acquireBody(target, rid(), "inst-1"), null);
		assertThat(anonymous.status()).isEqualTo(401);
		assertThat(anonymous.code()).isEqualTo("invalid_credential");
		assertThat(post("acquire", acquireBody(target, rid(), "inst-1"),
				WorkerHttp.basic("key_worker_a", "wrong")).status()).isEqualTo(401);
		assertThat(post("acquire", acquireBody(target, rid(), "inst-1"), READER).status()).isEqualTo(403);
		assertThat(post("acquire", acquireBody(target, rid(), "inst-1"), NARROW).status()).isEqualTo(403);
		JsonNode lease = acquired(target, "inst-1");
		// a reader may inspect, but sees only its own leases: not found
		ObjectNode inspect = handleBody(lease, null, "inst-1");
		inspect.remove("fencing_token");
		assertThat(post("inspect", inspect, READER).status()).isEqualTo(404);
		assertThat(post("renew", handleBody(lease, rid(), "inst-1"), NARROW).code()).isEqualTo("lease_lost");
	}

	/**
	 * Exactly one audit event per worker request, of the operation's type: a sweep over every operation with
	 * successes, refusals (conflict, lost, scope, capability, deadline), malformed and unauthenticated requests, a
	 * bounded-wait acquire that retries (one event, not one per attempt), a resolve ({@code target_lease_resolve}) and
	 * an authorize-commit ({@code target_lease_commit_authorize}, or {@code target_lease_commit_rejected}). Events are
	 * counted per correlation id once the last request's event has arrived.
	 */
	@Test
	void everyRequestEmitsExactlyOneAuditEventOfItsType() {
		String target = target();
		Map<String, String> expected = new LinkedHashMap<>();
		BiConsumer<WorkerHttp.Reply, String> expect = (reply, type) -> {
			String correlation = reply.json().path("correlation_id").asString();
			assertThat(correlation).as(reply.body()).isNotEmpty();
			expected.put(correlation, type);
		};
		WorkerHttp.Reply acquired = post("acquire", acquireBody(target, rid(), "inst-1"), A);
		expect.accept(acquired, "target_lease_acquire");
		JsonNode lease = acquired.json().path("lease");
		expect.accept(post("acquire", acquireBody(target, rid(), "inst-2"), B), "target_lease_acquire");
		ObjectNode waiting = acquireBody(target, rid(), "inst-2");
		waiting.put("wait_ms", 400);
		WorkerHttp.Reply waited = post("acquire", waiting, B);
		assertThat(waited.code()).isEqualTo("lease_conflict");
		expect.accept(waited, "target_lease_acquire");
		expect.accept(post("acquire", acquireBody(target, rid(), "inst-1"), null), "target_lease_acquire");
		expect.accept(post("acquire", acquireBody(target, rid(), "inst-1"), READER), "target_lease_acquire");
		expect.accept(this.http.post("/lease/v1/leases/acquire", "{", A), "target_lease_acquire");
		ObjectNode late = acquireBody(target(), rid(), "inst-1");
		late.put("deadline_at", Instant.now().minusSeconds(5).toString());
		expect.accept(post("acquire", late, A), "target_lease_acquire");
		ObjectNode renew = handleBody(lease, rid(), "inst-1");
		renew.put("ttl_ms", 45_000);
		expect.accept(post("renew", renew, A), "target_lease_renew");
		expect.accept(post("renew", handleBody(lease, rid(), "inst-1"), B), "target_lease_renew");
		expect.accept(this.http.post("/lease/v1/leases/renew", "[]", A), "target_lease_renew");
		ObjectNode inspect = handleBody(lease, null, "inst-1");
		inspect.remove("fencing_token");
		expect.accept(post("inspect", inspect, A), "target_lease_inspect");
		expect.accept(post("inspect", inspect, B), "target_lease_inspect");
		ObjectNode resolve = WorkerHttp.JSON.createObjectNode();
		resolve.put("service_instance_id", "inst-1");
		resolve.set("lock_identity", identity(target));
		resolve.put("operation", "renew");
		resolve.put("request_id", renew.path("request_id").asString());
		WorkerHttp.Reply resolved = post("resolve", resolve, A);
		assertThat(resolved.status()).as(resolved.body()).isEqualTo(200);
		expect.accept(resolved, "target_lease_resolve");
		expect.accept(post("resolve", resolve, B), "target_lease_resolve");
		expect.accept(post("resolve", resolve, null), "target_lease_resolve");
		ObjectNode commit = handleBody(lease, null, "inst-1");
		WorkerHttp.Reply authorized = post("authorize-commit", commit, A);
		assertThat(authorized.code()).isEqualTo("lease_commit_authorized");
		expect.accept(authorized, "target_lease_commit_authorize");
		expect.accept(post("authorize-commit", commit, B), "target_lease_commit_rejected");
		expect.accept(post("authorize-commit", commit, NARROW), "target_lease_commit_rejected");
		expect.accept(post("release", handleBody(lease, rid(), "inst-1"), A), "target_lease_release");
		expect.accept(post("release", handleBody(lease, rid(), "inst-1"), A), "target_lease_release");
		expect.accept(post("authorize-commit", commit, A), "target_lease_commit_rejected");
		expect.accept(this.http.send("POST", "/lease/v1/leases/nope", "{}", A, "application/json", Map.of()),
				"target_lease_inspect");
		// routine events may go through the asynchronous audit pipeline: the marker is the last request
		WorkerHttp.Reply marker = post("acquire", acquireBody(target(), rid(), "inst-1"), null);
		String last = marker.json().path("correlation_id").asString();
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> this.audit.events.stream().anyMatch((e) -> last.equals(e.correlationId())));
		for (Map.Entry<String, String> entry : expected.entrySet()) {
			List<String> types = this.audit.events.stream()
				.filter((e) -> entry.getKey().equals(e.correlationId()))
				.map((e) -> e.eventType().wireName())
				.toList();
			assertThat(types).as(entry.getKey()).containsExactly(entry.getValue());
		}
		assertThat(expected).hasSize(22);
		for (AuditEvent event : this.audit.events) {
			assertThat(event.toFields().toString()).doesNotContain(LockIdentity.KEY_PREFIX)
				.doesNotContain(WorkerTestApplication.SECRET_A);
		}
	}

	/**
	 * A multipart body the servlet container cannot parse fails before any handler is chosen (the DispatcherServlet's
	 * multipart resolution): still the worker API's answers, 401 first, then 400, audited; never Spring MVC's 500.
	 */
	@Test
	void anUnparsableMultipartBodyIsAnEnvelopeNotA500() {
		String broken = "--x\r\n\r\n--x--";
		for (String contentType : List.of("multipart/form-data; boundary=x", "multipart/form-data",
				"multipart/mixed; boundary=x")) {
			WorkerHttp.Reply anonymous = this.http.send("POST", "/lease/v1/leases/acquire", broken, null, contentType,
					Map.of());
			assertThat(anonymous.status()).as(contentType + ": " + anonymous.body()).isEqualTo(401);
			assertThat(anonymous.code()).isEqualTo("invalid_credential");
			WorkerHttp.Reply malformed = this.http.send("POST", "/lease/v1/leases/acquire", broken, A, contentType,
					Map.of());
			assertThat(malformed.status()).as(contentType + ": " + malformed.body()).isEqualTo(400);
			assertThat(malformed.code()).isEqualTo("invalid_lease_request");
			String correlation = malformed.json().path("correlation_id").asString();
			assertThat(malformed.headers().get("x-correlation-id")).containsExactly(correlation);
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> this.audit.events.stream()
					.anyMatch((e) -> correlation.equals(e.correlationId())
							&& e.resultCode() == ResultCode.INVALID_LEASE_REQUEST
							&& "prn_worker_a".equals(e.principalId())));
		}
	}

	/**
	 * docs/worker-api.md: every response carries {@code X-Correlation-Id} and {@code Cache-Control: no-store} (the
	 * OpenAPI description too); {@code Retry-After} is sent exactly when the envelope is retryable, as
	 * {@code retry_after_ms} in seconds rounded up (0 for a 408).
	 */
	@Test
	void everyResponseCarriesNoStoreAndRetryAfterExactlyWhenTheEnvelopeIsRetryable() {
		String target = target();
		ObjectNode late = acquireBody(target, rid(), "inst-1");
		late.put("deadline_at", Instant.now().minusSeconds(5).toString());
		WorkerHttp.Reply pastDeadline = post("acquire", late, A);
		WorkerHttp.Reply acquired = post("acquire", acquireBody(target, rid(), "inst-1"), A);
		WorkerHttp.Reply conflict = post("acquire", acquireBody(target, rid(), "inst-2"), B);
		WorkerHttp.Reply malformed = post("acquire", WorkerHttp.JSON.createObjectNode(), A);
		WorkerHttp.Reply description = this.http.send("GET", "/lease/v1/openapi.json", null, null, null,
				Map.of("X-Correlation-Id", "corr_openapi_1"));
		assertThat(List.of(pastDeadline.status(), acquired.status(), conflict.status(), malformed.status(),
				description.status())).containsExactly(408, 200, 409, 400, 200);
		for (WorkerHttp.Reply reply : List.of(pastDeadline, acquired, conflict, malformed, description)) {
			assertThat(reply.headers().get("cache-control")).as(reply.status() + " " + reply.headers())
				.containsExactly("no-store");
			assertThat(reply.headers().get("x-correlation-id")).as(reply.status() + " " + reply.headers()).hasSize(1);
		}
		assertThat(description.headers().get("x-correlation-id")).containsExactly("corr_openapi_1");
		assertThat(pastDeadline.json().path("retry_after_ms").asLong(-1)).isZero();
		assertThat(pastDeadline.headers().get("retry-after")).as(pastDeadline.headers().toString())
			.containsExactly("0");
		long conflictHint = conflict.json().path("retry_after_ms").asLong();
		assertThat(conflict.headers().get("retry-after"))
			.containsExactly(Long.toString((conflictHint + 999) / 1000));
		for (WorkerHttp.Reply reply : List.of(acquired, malformed, description)) {
			assertThat(reply.headers()).as(reply.status() + " " + reply.headers()).doesNotContainKey("retry-after");
		}
	}

	/**
	 * A body that stalls (500 bytes declared, 5 sent, then nothing) is answered once the default deadline (5 s) passes
	 * — not held until the connector's timeout and answered by the container's error page — with the envelope:
	 * {@code 408 deadline_exceeded}, the correlation id, {@code no-store}; audited with that code.
	 */
	@Test
	void aStalledBodyIsAnsweredWithTheEnvelopeAndAuditedWithTheCodeSent() throws Exception {
		String correlation = "corr_stalled_" + UUID.randomUUID().toString().replace("-", "");
		String head;
		String body;
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(120_000);
			OutputStream out = socket.getOutputStream();
			out.write(("POST /lease/v1/leases/inspect HTTP/1.1\r\nHost: x\r\nAuthorization: " + A
					+ "\r\nContent-Type: application/json\r\nX-Service-Instance-Id: inst-1\r\nX-Correlation-Id: "
					+ correlation + "\r\nContent-Length: 500\r\nConnection: close\r\n\r\n{\"a\":")
				.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			InputStream in = socket.getInputStream();
			ByteArrayOutputStream received = new ByteArrayOutputStream();
			while (!received.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
				int b = in.read();
				assertThat(b).as("the answer ended within its head: " + received).isNotNegative();
				received.write(b);
			}
			head = received.toString(StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
			assertThat(head).as(head).startsWith("http/1.1 408").contains("x-correlation-id: " + correlation.toLowerCase(Locale.ROOT))
				.contains("cache-control: no-store").contains("retry-after: 0");
			Matcher length = Pattern.compile("content-length: (\\d+)").matcher(head);
			assertThat(length.find()).as(head).isTrue();
			body = new String(in.readNBytes(Integer.parseInt(length.group(1))), StandardCharsets.UTF_8);
		}
		JsonNode envelope = WorkerHttp.JSON.readTree(body);
		assertThat(envelope.path("code").asString()).as(body).isEqualTo("deadline_exceeded");
		assertThat(envelope.path("correlation_id").asString()).isEqualTo(correlation);
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> this.audit.events.stream()
				.anyMatch((e) -> correlation.equals(e.correlationId())
						&& e.resultCode() == ResultCode.DEADLINE_EXCEEDED && "prn_worker_a".equals(e.principalId())));
		assertThat(this.audit.events.stream().filter((e) -> correlation.equals(e.correlationId()))
			.map(AuditEvent::resultCode)).containsExactly(ResultCode.DEADLINE_EXCEEDED);
	}

	@Test
	void unknownPathsMethodsAndContentTypesAreEnvelopes() {
		for (WorkerHttp.Reply reply : List.of(this.http.send("GET", "/lease/v1/leases/acquire", null, A, null, Map.of()),
				this.http.send("POST", "/lease/v1/leases/nope", "{}", A, "application/json", Map.of()),
				this.http.send("POST", "/lease/v1/leases/acquire", "{}", A, "text/plain", Map.of()),
				this.http.send("DELETE", "/lease/v1", null, A, null, Map.of()))) {
			assertThat(reply.status()).as(reply.body()).isEqualTo(400);
			assertThat(reply.code()).isEqualTo("invalid_lease_request");
			assertThat(reply.json().path("correlation_id").asString()).isNotEmpty();
		}
	}

	private LeaseResult inspect(LockIdentity identity) {
		return this.service.inspect(InspectRequest.byIdentity(identity, this.service.newId(), this.service.deadline()));
	}

}
