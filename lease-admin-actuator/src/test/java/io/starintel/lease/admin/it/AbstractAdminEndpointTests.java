package io.starintel.lease.admin.it;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;

import org.awaitility.Awaitility;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.store.LeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real-HTTP tests of the admin endpoint against a running application on a random port; subclasses choose the store.
 * Every test works in its own random program; credentials are generated per run with bcrypt hashes.
 */
abstract class AbstractAdminEndpointTests {

	static final String TENANT = "tenant-a";

	static final String OTHER_TENANT = "tenant-b";

	static final List<String> PROGRAMS = new ArrayList<>();

	static final String RESTRICTED_PROGRAM = "p-" + UUID.randomUUID().toString().substring(0, 8);

	static final String ADMIN_PASSWORD = "pw-admin-" + UUID.randomUUID();

	static final String WORKER_PASSWORD = "pw-worker-" + UUID.randomUUID();

	static final String OTHER_PASSWORD = "pw-other-" + UUID.randomUUID();

	static final String OPERATOR_PASSWORD = "pw-operator-" + UUID.randomUUID();

	static final String SCOPED_PASSWORD = "pw-scoped-" + UUID.randomUUID();

	static final AtomicInteger NEXT_PROGRAM = new AtomicInteger();

	static {
		for (int i = 0; i < 40; i++) {
			PROGRAMS.add("p-" + UUID.randomUUID().toString().substring(0, 8));
		}
	}

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		BCryptPasswordEncoder bcrypt = new BCryptPasswordEncoder(4);
		String all = String.join(",", PROGRAMS);
		credential(registry, 0, "admin-alice", "cred-admin-a", "{bcrypt}" + bcrypt.encode(ADMIN_PASSWORD),
				"administrator", "targets:read,targets:force-release,targets:revoke", TENANT, all);
		credential(registry, 1, "worker-w", "cred-worker-a", "{bcrypt}" + bcrypt.encode(WORKER_PASSWORD), "worker",
				"targets:read", TENANT, all);
		credential(registry, 2, "admin-bob", "cred-admin-b", "{bcrypt}" + bcrypt.encode(OTHER_PASSWORD),
				"administrator", "targets:read,targets:force-release,targets:revoke", OTHER_TENANT, all);
		credential(registry, 3, "operator-o", "cred-operator-a", "{bcrypt}" + bcrypt.encode(OPERATOR_PASSWORD),
				"operator", "targets:read", TENANT, RESTRICTED_PROGRAM);
		credential(registry, 4, "admin-scoped", "cred-admin-scoped", "{bcrypt}" + bcrypt.encode(SCOPED_PASSWORD),
				"administrator", "targets:read,targets:revoke", TENANT, all);
		registry.add("starintel.lease.admin.credentials[4].actors", () -> "usernamegen");
		registry.add("starintel.lease.admin.credentials[4].targets", () -> "starintel-target/t-mine");
	}

	private static void credential(DynamicPropertyRegistry registry, int i, String principal, String id, String hash,
			String kind, String capabilities, String tenant, String programs) {
		String p = "starintel.lease.admin.credentials[" + i + "].";
		registry.add(p + "principal", () -> principal);
		registry.add(p + "credential-id", () -> id);
		registry.add(p + "secret-hash", () -> hash);
		registry.add(p + "kind", () -> kind);
		registry.add(p + "capabilities", () -> capabilities);
		registry.add(p + "tenant", () -> tenant);
		registry.add(p + "programs", () -> programs);
	}

	static final String ADMIN = AdminHttp.basic("cred-admin-a", ADMIN_PASSWORD);

	static final String WORKER = AdminHttp.basic("cred-worker-a", WORKER_PASSWORD);

	static final String OTHER_ADMIN = AdminHttp.basic("cred-admin-b", OTHER_PASSWORD);

	static final String OPERATOR = AdminHttp.basic("cred-operator-a", OPERATOR_PASSWORD);

	static final String SCOPED_ADMIN = AdminHttp.basic("cred-admin-scoped", SCOPED_PASSWORD);

	static final List<String> STREAMS_USED = new ArrayList<>();

	@LocalServerPort
	int port;

	@Autowired
	LeaseStore store;

	@Autowired
	StringRedisTemplate redis;

	AdminHttp http;

	String program;

	@BeforeEach
	void setUp() {
		this.http = new AdminHttp(this.port);
		this.program = PROGRAMS.get(NEXT_PROGRAM.getAndIncrement());
		STREAMS_USED.add(RedisStreamAuditSink.streamKey(new ProgramScope(TENANT, this.program)));
		STREAMS_USED.add(RedisStreamAuditSink.routineStreamKey(new ProgramScope(TENANT, this.program)));
	}

	@AfterAll
	static void deleteStreams(@Autowired StringRedisTemplate redis) {
		redis.delete(STREAMS_USED);
	}

	// ---------------------------------------------------------------- helpers

	LockIdentity identity(String target) {
		return LockIdentity.of(TENANT, this.program, "starintel-target", target, "usernamegen", "default", null);
	}

	LeaseRecord acquire(LockIdentity identity) {
		LeaseResult result = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("req"),
				Instant.now().plusSeconds(10), new LeaseOwner("worker-w", "client-1", "cred-worker-a", "instance-1"),
				30_000, 300_000, Identifiers.generate("exec"), "job-1", "trace-1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	static ObjectNode identityJson(LockIdentity identity) {
		ObjectNode node = AdminHttp.JSON.createObjectNode();
		for (int i = 0; i < LockIdentity.COMPONENTS.size(); i++) {
			node.put(LockIdentity.COMPONENTS.get(i), identity.components().get(i));
		}
		return node;
	}

	static ObjectNode adminBody(LeaseRecord lease, String requestId, String reason) {
		ObjectNode body = AdminHttp.JSON.createObjectNode();
		body.put("request_id", requestId);
		body.set("lock_identity", identityJson(lease.identity()));
		body.put("lease_id", lease.leaseId());
		body.put("fencing_token", lease.fencingToken());
		body.put("reason", reason);
		return body;
	}

	static String text(JsonNode node) {
		return AdminHttp.JSON.writeValueAsString(node);
	}

	String scopeQuery() {
		return "tenant_id=" + TENANT + "&program_id=" + this.program;
	}

	static void assertError(AdminHttp.Reply reply, int status, String code) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(status);
		JsonNode json = reply.json();
		assertThat(json.get("status").asString()).isEqualTo("error");
		assertThat(json.get("code").asString()).isEqualTo(code);
		assertThat(json.get("msg").asString()).isNotBlank();
		assertThat(json.get("correlation_id").asString()).isNotBlank();
		assertThat(json.get("retryable").isBoolean()).isTrue();
		assertThat(json.propertyNames()).isSubsetOf("status", "code", "msg", "correlation_id", "retryable",
				"retry_after_ms");
	}

	static void assertLeaseEnvelope(JsonNode lease, LeaseRecord expected) {
		Set<String> names = new LinkedHashSet<>(lease.propertyNames());
		// list and inspect add the holder (issue 10: owner principal, service instance, execution and job id)
		if (names.remove("holder")) {
			assertThat(lease.get("holder").propertyNames()).containsExactlyInAnyOrder("owner_principal_id",
					"service_instance_id", "execution_id", "job_id");
			assertThat(lease.get("holder").get("owner_principal_id").asString())
				.isEqualTo(expected.owner().principalId());
		}
		assertThat(names).containsExactlyInAnyOrder("lock_identity", "lease_id", "fencing_token",
				"acquired_at", "renewed_at", "expires_at", "ttl_ms", "state");
		assertThat(lease.get("lease_id").asString()).isEqualTo(expected.leaseId());
		assertThat(lease.get("fencing_token").asLong()).isEqualTo(expected.fencingToken());
		assertThat(lease.get("lock_identity").get("target_id").asString()).isEqualTo(expected.identity().targetId());
		assertThat(lease.get("lock_identity").propertyNames()).containsExactlyElementsOf(LockIdentity.COMPONENTS);
	}

	/** The events of the program's admin stream, then those of its routine stream. */
	List<Map<Object, Object>> auditEvents() {
		ProgramScope scope = new ProgramScope(TENANT, this.program);
		List<MapRecord<String, Object, Object>> records = new ArrayList<>(
				this.redis.opsForStream().read(StreamOffset.fromStart(RedisStreamAuditSink.streamKey(scope))));
		records.addAll(this.redis.opsForStream().read(StreamOffset.fromStart(RedisStreamAuditSink.routineStreamKey(scope))));
		List<Map<Object, Object>> events = new ArrayList<>();
		for (MapRecord<String, Object, Object> record : records) {
			events.add(new LinkedHashMap<>(record.getValue()));
		}
		return events;
	}

	// ---------------------------------------------------------------- list and inspect

	@Test
	void listPagesThroughTheProgramWithAnOpaqueCursor() {
		LeaseRecord first = acquire(identity("t-1"));
		LeaseRecord second = acquire(identity("t-2"));
		AdminHttp.Reply page1 = this.http.get("?" + scopeQuery() + "&page_size=1", ADMIN);
		assertThat(page1.status()).as(page1.body()).isEqualTo(200);
		JsonNode json1 = page1.json();
		assertThat(json1.get("status").asString()).isEqualTo("success");
		assertThat(json1.get("code").asString()).isEqualTo("lease_listed");
		assertThat(json1.get("leases")).hasSize(1);
		String cursor = json1.get("next_cursor").asString();
		AdminHttp.Reply page2 = this.http.get("?" + scopeQuery() + "&page_size=1&cursor=" + cursor, ADMIN);
		JsonNode json2 = page2.json();
		assertThat(json2.get("leases")).hasSize(1);
		List<String> ids = List.of(json1.get("leases").get(0).get("lease_id").asString(),
				json2.get("leases").get(0).get("lease_id").asString());
		assertThat(ids).containsExactlyInAnyOrder(first.leaseId(), second.leaseId());
		// a cursor of another filter (or altered) is refused naming the field
		AdminHttp.Reply foreign = this.http
			.get("?" + scopeQuery() + "&owner_principal_id=worker-w&page_size=1&cursor=" + cursor, ADMIN);
		assertThat(foreign.status()).as(foreign.body()).isEqualTo(400);
		assertThat(foreign.json().get("code").asString()).isEqualTo("invalid_lease_request");
		assertThat(foreign.json().get("msg").asString()).contains("cursor");
		AdminHttp.Reply byTarget = this.http
			.get("?" + scopeQuery() + "&target_namespace=starintel-target&target_id=t-2", WORKER);
		assertThat(byTarget.json().get("leases")).hasSize(1);
		assertLeaseEnvelope(byTarget.json().get("leases").get(0), second);
		AdminHttp.Reply byOwner = this.http.get("?" + scopeQuery() + "&owner_principal_id=worker-w", WORKER);
		assertThat(byOwner.json().get("leases")).hasSize(2);
		assertThat(byOwner.body()).doesNotContain(LockIdentity.KEY_PREFIX).doesNotContain("cred-worker-a");
		assertThat(byOwner.json().get("leases").get(0).get("holder").get("service_instance_id").asString())
			.isEqualTo("instance-1");
	}

	@Test
	void inspectByLeaseIdAndByIdentityReturnOnlyNonSecretFields() {
		LeaseRecord lease = acquire(identity("t-inspect"));
		AdminHttp.Reply byId = this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), WORKER);
		assertThat(byId.status()).as(byId.body()).isEqualTo(200);
		assertThat(byId.code()).isEqualTo("lease_inspected");
		assertLeaseEnvelope(byId.json().get("lease"), lease);
		assertThat(byId.headers().firstValue("X-Correlation-Id")).hasValue(byId.json().get("correlation_id").asString());
		ObjectNode body = AdminHttp.JSON.createObjectNode();
		body.set("lock_identity", identityJson(lease.identity()));
		AdminHttp.Reply byIdentity = this.http.post("/inspect", text(body), ADMIN);
		assertThat(byIdentity.status()).isEqualTo(200);
		assertLeaseEnvelope(byIdentity.json().get("lease"), lease);
		// the holder is shown to an authorized caller (issue 10); credential, client, trace and metadata never are
		assertThat(byIdentity.body()).doesNotContain(lease.lockKey()).doesNotContain("cred-worker-a")
			.doesNotContain("client-1").doesNotContain("trace-1");
		assertThat(byIdentity.json().get("lease").get("holder").get("owner_principal_id").asString())
			.isEqualTo("worker-w");
		assertThat(byIdentity.json().get("lease").get("holder").get("job_id").asString()).isEqualTo("job-1");
	}

	// ---------------------------------------------------------------- authentication and authorization

	@Test
	void unauthenticatedOrWrongSecretIs401BeforeAnyLeaseAccess() {
		assertError(this.http.get("?" + scopeQuery(), null), 401, "invalid_credential");
		assertError(this.http.get("?" + scopeQuery(), AdminHttp.basic("cred-admin-a", "wrong")), 401,
				"invalid_credential");
		assertError(this.http.post("/revoke", "{", AdminHttp.basic("nobody", "x")), 401, "invalid_credential");
		AdminHttp.Reply reply = this.http.get("?" + scopeQuery(), "Basic !!!not-base64");
		assertError(reply, 401, "invalid_credential");
		assertThat(reply.headers().firstValue("WWW-Authenticate")).isEmpty();
	}

	@Test
	void workerCredentialIsRefusedForRevokeAndForceRelease() {
		LeaseRecord lease = acquire(identity("t-worker"));
		String body = text(adminBody(lease, Identifiers.generate("req"), "worker tries"));
		assertError(this.http.post("/revoke", body, WORKER), 403, "access_denied");
		assertError(this.http.post("/force-release", body, WORKER), 403, "access_denied");
		assertError(this.http.post("/revoke", body, OPERATOR), 403, "access_denied");
		assertThat(this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), WORKER).status()).isEqualTo(200);
	}

	@Test
	void tenantsAndProgramsAreIsolated() {
		LeaseRecord lease = acquire(identity("t-scope"));
		// another tenant's administrator: list refused, inspect indistinguishable from a missing lease
		assertError(this.http.get("?" + scopeQuery(), OTHER_ADMIN), 403, "access_denied");
		AdminHttp.Reply otherTenant = this.http.get("/" + lease.leaseId() + "?tenant_id=" + OTHER_TENANT
				+ "&program_id=" + this.program, OTHER_ADMIN);
		assertError(otherTenant, 404, "lease_not_found");
		AdminHttp.Reply crossScope = this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), OTHER_ADMIN);
		AdminHttp.Reply missing = this.http.get("/lease_missing?" + scopeQuery(), ADMIN);
		assertError(crossScope, 404, "lease_not_found");
		assertError(missing, 404, "lease_not_found");
		assertThat(withoutCorrelation(crossScope)).isEqualTo(withoutCorrelation(missing));
		assertError(this.http.post("/revoke", text(adminBody(lease, Identifiers.generate("req"), "x")), OTHER_ADMIN),
				403, "access_denied");
		// same tenant, another program
		assertError(this.http.get("?" + scopeQuery(), OPERATOR), 403, "access_denied");
		ObjectNode inspect = AdminHttp.JSON.createObjectNode();
		inspect.set("lock_identity", identityJson(lease.identity()));
		AdminHttp.Reply otherProgram = this.http.post("/inspect", text(inspect), OPERATOR);
		assertError(otherProgram, 404, "lease_not_found");
		assertThat(withoutCorrelation(otherProgram)).isEqualTo(withoutCorrelation(missing));
		AdminHttp.Reply ownProgram = this.http.get("?tenant_id=" + TENANT + "&program_id=" + RESTRICTED_PROGRAM,
				OPERATOR);
		assertThat(ownProgram.status()).isEqualTo(200);
		assertThat(ownProgram.body()).doesNotContain(lease.leaseId());
		// the lease is untouched
		assertThat(this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), ADMIN).status()).isEqualTo(200);
	}

	/** The holder's next FenceGuard authorization is refused and its lease context is marked lost (cancellation). */
	void assertFenceRefusedAndContextLost(LeaseRecord lease) {
		LeaseContext context = new LeaseContext(lease);
		FenceDecision decision = new FenceGuard(this.store).authorize(context);
		assertThat(decision.isAuthorized()).isFalse();
		assertThat(decision.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(context.isLost()).isTrue();
		assertThat(context.holdsAuthority()).isFalse();
	}

	@Test
	void actorAndTargetScopeConfinesAnAdministrator() {
		LeaseRecord mine = acquire(identity("t-mine"));
		LeaseRecord other = acquire(identity("t-other"));
		AdminHttp.Reply list = this.http.get("?" + scopeQuery(), SCOPED_ADMIN);
		assertThat(list.status()).isEqualTo(200);
		assertThat(list.json().get("leases")).hasSize(1);
		assertThat(list.body()).contains(mine.leaseId()).doesNotContain(other.leaseId());
		assertError(this.http.get("/" + other.leaseId() + "?" + scopeQuery(), SCOPED_ADMIN), 404, "lease_not_found");
		assertError(this.http.post("/revoke", text(adminBody(other, Identifiers.generate("req"), "out of scope")),
				SCOPED_ADMIN), 403, "access_denied");
		assertError(this.http.post("/force-release", text(adminBody(mine, Identifiers.generate("req"), "no capability")),
				SCOPED_ADMIN), 403, "access_denied");
		assertThat(this.http.post("/revoke", text(adminBody(mine, Identifiers.generate("req"), "in scope")),
				SCOPED_ADMIN).code()).isEqualTo("lease_revoked");
		assertThat(this.http.get("/" + other.leaseId() + "?" + scopeQuery(), ADMIN).status()).isEqualTo(200);
	}

	static String withoutCorrelation(AdminHttp.Reply reply) {
		ObjectNode json = (ObjectNode) reply.json();
		json.remove("correlation_id");
		return text(json) + reply.status();
	}

	// ---------------------------------------------------------------- force-release and revoke

	@Test
	void forceReleaseInvalidatesTheHolderAndIsIdempotentByRequestId() {
		LeaseRecord lease = acquire(identity("t-force"));
		String requestId = Identifiers.generate("req");
		String body = text(adminBody(lease, requestId, "stuck job"));
		AdminHttp.Reply reply = this.http.post("/force-release", body, ADMIN);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		assertThat(reply.code()).isEqualTo("lease_released");
		assertThat(reply.json().get("lease").get("state").asString()).isEqualTo("released");
		// right after success the former holder cannot renew or commit
		LeaseResult renew = this.store
			.renew(new RenewRequest(lease.handle(), Identifiers.generate("req"), Instant.now().plusSeconds(5)));
		assertThat(renew.code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseResult commit = this.store
			.authorizeCommit(new CommitRequest(lease.handle(), "corr-commit", Instant.now().plusSeconds(5)));
		assertThat(commit.code()).isEqualTo(ResultCode.LEASE_LOST);
		assertFenceRefusedAndContextLost(lease);
		// replay with the same request id: the original result
		AdminHttp.Reply replay = this.http.post("/force-release", body, ADMIN);
		assertThat(replay.status()).isEqualTo(200);
		assertThat(replay.json().get("lease").get("lease_id").asString()).isEqualTo(lease.leaseId());
		// same request id, different reason: idempotency conflict
		assertError(this.http.post("/force-release", text(adminBody(lease, requestId, "other reason")), ADMIN), 409,
				"idempotency_conflict");
		// a successor is never touched by a stale admin request
		LeaseRecord successor = acquire(lease.identity());
		assertError(this.http.post("/force-release", text(adminBody(lease, Identifiers.generate("req"), "again")),
				ADMIN), 409, "lease_lost");
		assertThat(this.http.get("/" + successor.leaseId() + "?" + scopeQuery(), ADMIN).status()).isEqualTo(200);
	}

	@Test
	void revokeWithIncidentIdInvalidatesTheHolder() {
		LeaseRecord lease = acquire(identity("t-revoke"));
		ObjectNode body = adminBody(lease, Identifiers.generate("req"), "compromised worker");
		body.put("incident_id", "INC-4711");
		AdminHttp.Reply reply = this.http.post("/revoke", text(body), ADMIN);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		assertThat(reply.code()).isEqualTo("lease_revoked");
		assertThat(reply.json().get("lease").get("state").asString()).isEqualTo("revoked");
		assertThat(this.store
			.renew(new RenewRequest(lease.handle(), Identifiers.generate("req"), Instant.now().plusSeconds(5)))
			.code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.store
			.authorizeCommit(new CommitRequest(lease.handle(), "corr-commit", Instant.now().plusSeconds(5)))
			.code()).isEqualTo(ResultCode.LEASE_LOST);
		assertError(this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), ADMIN), 404, "lease_not_found");
		assertFenceRefusedAndContextLost(lease);
	}

	@Test
	void adminOperationsRequireAReason() {
		LeaseRecord lease = acquire(identity("t-reason"));
		ObjectNode noReason = adminBody(lease, Identifiers.generate("req"), "x");
		noReason.remove("reason");
		assertError(this.http.post("/force-release", text(noReason), ADMIN), 400, "invalid_lease_request");
		assertError(this.http.post("/revoke", text(noReason), ADMIN), 400, "invalid_lease_request");
		noReason.put("reason", " ");
		assertError(this.http.post("/force-release", text(noReason), ADMIN), 400, "invalid_lease_request");
		assertThat(this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), ADMIN).status()).isEqualTo(200);
	}

	@Test
	void aDeadlineAlreadyPastIs408WithoutMutation() {
		LeaseRecord lease = acquire(identity("t-deadline"));
		ObjectNode body = adminBody(lease, Identifiers.generate("req"), "late");
		body.put("deadline_at", Instant.now().minusSeconds(5).toString());
		AdminHttp.Reply reply = this.http.post("/revoke", text(body), ADMIN);
		assertError(reply, 408, "deadline_exceeded");
		assertThat(reply.json().get("retryable").asBoolean()).isTrue();
		assertError(this.http.get("/" + lease.leaseId() + "?" + scopeQuery() + "&deadline_at="
				+ Instant.now().minusSeconds(5), ADMIN), 408, "deadline_exceeded");
		assertThat(this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), ADMIN).status()).isEqualTo(200);
	}

	// ---------------------------------------------------------------- audit

	@Test
	void auditEventsAreReadBackFromTheProgramStreamWithoutSecrets() {
		LeaseRecord revoked = acquire(identity("t-audit-1"));
		LeaseRecord released = acquire(identity("t-audit-2"));
		String revokeId = Identifiers.generate("req");
		ObjectNode revokeBody = adminBody(revoked, revokeId, "incident response");
		AdminHttp.Reply revokeReply = this.http.post("/revoke", text(revokeBody), ADMIN);
		assertThat(revokeReply.status()).isEqualTo(200);
		String releaseId = Identifiers.generate("req");
		AdminHttp.Reply releaseReply = this.http.post("/force-release", text(adminBody(released, releaseId, "stuck")),
				ADMIN);
		assertThat(releaseReply.status()).isEqualTo(200);
		AdminHttp.Reply inspect = this.http.get("/" + released.leaseId() + "?" + scopeQuery(), WORKER);
		assertError(this.http.post("/revoke", text(adminBody(released, Identifiers.generate("req"), "w")), WORKER),
				403, "access_denied");

		// a refusal's event reaches the stream through the non-blocking pipeline: read once it is there
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> auditEvents().stream()
				.anyMatch((e) -> "target_lease_revoke".equals(e.get("event_type"))
						&& "access_denied".equals(e.get("result_code"))));
		List<Map<Object, Object>> events = auditEvents();
		Map<Object, Object> revoke = single(events, "target_lease_revoke", revokeId);
		Map<Object, Object> release = single(events, "target_lease_force_release", releaseId);
		for (Map<Object, Object> event : List.of(revoke, release)) {
			assertThat(event).containsKeys("backend_time", "request_id", "principal_class", "principal_id",
					"credential_id", "tenant_id", "program_id", "target_namespace", "target_id", "actor_name",
					"workflow_name", "operation_class", "lease_id", "fencing_token", "previous_state",
					"resulting_state", "result_code", "retryable", "backend_health", "reason");
			assertThat(event.get("principal_class")).isEqualTo("administrator");
			assertThat(event.get("principal_id")).isEqualTo("admin-alice");
			assertThat(event.get("credential_id")).isEqualTo("cred-admin-a");
			assertThat(event.get("tenant_id")).isEqualTo(TENANT);
			assertThat(event.get("program_id")).isEqualTo(this.program);
			assertThat(event.get("previous_state")).isEqualTo("active");
			assertThat(event.get("retryable")).isEqualTo("false");
			assertThat(event.get("backend_health")).isEqualTo("ok");
			assertThat(event.get("backend_time").toString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
			// the durable record of the decision names the request the operator was answered for (contract: each
			// event records request, correlation and decision ids and the latency)
			assertThat(event.get("decision_id")).as("decision_id").asString().matches("dec_[0-9A-Z]{26}");
			assertThat(event.get("latency_ms")).as("latency_ms").asString().matches("\\d+");
		}
		assertThat(revoke.get("correlation_id")).as("the revoke's durable entry: the response's correlation id")
			.isEqualTo(revokeReply.json().get("correlation_id").asString());
		assertThat(release.get("correlation_id")).as("the force-release's durable entry: the response's correlation id")
			.isEqualTo(releaseReply.json().get("correlation_id").asString());
		assertThat(revoke.get("lease_id")).isEqualTo(revoked.leaseId());
		assertThat(revoke.get("fencing_token")).isEqualTo(Long.toString(revoked.fencingToken()));
		assertThat(revoke.get("resulting_state")).isEqualTo("revoked");
		assertThat(revoke.get("result_code")).isEqualTo("lease_revoked");
		assertThat(revoke.get("reason")).isEqualTo("incident response");
		assertThat(release.get("resulting_state")).isEqualTo("released");
		assertThat(release.get("result_code")).isEqualTo("lease_released");

		Map<Object, Object> inspected = events.stream()
			.filter(e -> "target_lease_inspect".equals(e.get("event_type"))
					&& inspect.json().get("correlation_id").asString().equals(e.get("correlation_id")))
			.findFirst()
			.orElseThrow();
		assertThat(inspected).containsEntry("principal_class", "worker")
			.containsEntry("result_code", "lease_not_found")
			.containsKeys("backend_time", "latency_ms", "decision_id", "deadline_class", "backend_health");
		assertThat(events).anySatisfy(e -> assertThat(e).containsEntry("event_type", "target_lease_revoke")
			.containsEntry("result_code", "access_denied")
			.containsEntry("principal_class", "worker"));

		for (Map<Object, Object> event : events) {
			assertThat(event.keySet()).noneMatch(k -> k.toString().matches("(?i).*(password|secret|metadata|lock_key|authorization|body|command).*"));
			for (Object value : event.values()) {
				assertThat(value.toString()).doesNotContain(LockIdentity.KEY_PREFIX + revoked.identity().keyDigest())
					.doesNotContain(LockIdentity.KEY_PREFIX + released.identity().keyDigest())
					.doesNotContain(ADMIN_PASSWORD)
					.doesNotContain(WORKER_PASSWORD)
					.doesNotContain("$2a$");
			}
		}
	}

	private static Map<Object, Object> single(List<Map<Object, Object>> events, String type, String requestId) {
		List<Map<Object, Object>> matching = events.stream()
			.filter(e -> type.equals(e.get("event_type")) && requestId.equals(e.get("request_id")))
			.toList();
		assertThat(matching).as(type + " events of " + requestId).hasSize(1);
		return matching.get(0);
	}

}
