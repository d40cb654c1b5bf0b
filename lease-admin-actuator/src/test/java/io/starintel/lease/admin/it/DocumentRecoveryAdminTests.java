package io.starintel.lease.admin.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.couchdb.FencedDocumentRecovery;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.test.TestServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST .../targetleases/recover-document} on the assembled application (the auto-configured Redis store,
 * CouchDB connection, fenced connector and forged-fence recovery from properties, the admin endpoint over real HTTP)
 * against Apache CouchDB and Redis: a document whose fence a client with database credentials forged above the
 * issued counter is repaired with the identity's counter as token by the recovery user (its own CouchDB user with the
 * role {@code starintel_fence_recovery}); the request needs an unrestricted {@code targets:revoke} grant, carries a
 * reason, and has exactly one audit event with the code answered. A fence that is not forged is left alone (400).
 */
@SpringBootTest(classes = AdminTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(DocumentRecoveryAdminTests.Recorded.class)
class DocumentRecoveryAdminTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final TestServers.CouchDb COUCHDB = TestServers.apacheCouchDb();

	private static final String DATABASE = "admin-recovery-" + UUID.randomUUID().toString().substring(0, 8);

	private static final String RECOVERY_USER = "fence-recovery-" + UUID.randomUUID().toString().substring(0, 8);

	private static final String RECOVERY_PASSWORD = "pw-" + UUID.randomUUID();

	private static final String PROGRAM = AbstractAdminEndpointTests.PROGRAMS.get(0);

	private static final HttpClient HTTP = HttpClient.newHttpClient();

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		AbstractAdminEndpointTests.credentials(registry);
		registry.add("starintel.lease.couchdb.url", COUCHDB::url);
		registry.add("starintel.lease.couchdb.username", COUCHDB::user);
		registry.add("starintel.lease.couchdb.password", COUCHDB::password);
		registry.add("starintel.lease.couchdb.database", () -> DATABASE);
		registry.add("starintel.lease.fence.couchdb.recovery.username", () -> RECOVERY_USER);
		registry.add("starintel.lease.fence.couchdb.recovery.password", () -> RECOVERY_PASSWORD);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Recorded {

		@Bean
		Events recordedAuditEvents() {
			return new Events();
		}

	}

	static final class Events implements AuditSink {

		final List<AuditEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void record(AuditEvent event) {
			this.events.add(event);
		}

	}

	@LocalServerPort
	int port;

	@Autowired
	LeaseService service;

	@Autowired
	Events audit;

	@Autowired
	FencedDocumentRecovery recovery;

	/** The database (the application installs the design document in it) and the recovery user, before start-up. */
	@BeforeAll
	static void createDatabaseAndRecoveryUser() throws Exception {
		assertThat(couch("PUT", "/" + DATABASE, null).statusCode()).isEqualTo(201);
		assertThat(couch("PUT", "/_users/org.couchdb.user:" + RECOVERY_USER, "{\"name\":\"" + RECOVERY_USER
				+ "\",\"password\":\"" + RECOVERY_PASSWORD + "\",\"roles\":[\"" + FencedDocumentRecovery.RECOVERY_ROLE
				+ "\"],\"type\":\"user\"}").statusCode()).isEqualTo(201);
		assertThat(couch("PUT", "/" + DATABASE + "/_security", "{\"admins\":{\"names\":[],\"roles\":[]},"
				+ "\"members\":{\"names\":[],\"roles\":[\"" + FencedDocumentRecovery.RECOVERY_ROLE + "\"]}}")
			.statusCode()).isEqualTo(200);
	}

	@AfterAll
	static void dropDatabaseAndRecoveryUser() throws Exception {
		couch("DELETE", "/" + DATABASE, null);
		HttpResponse<String> user = couch("GET", "/_users/org.couchdb.user:" + RECOVERY_USER, null);
		String rev = JSON.readTree(user.body()).path("_rev").asString();
		couch("DELETE", "/_users/org.couchdb.user:" + RECOVERY_USER + "?rev=" + rev, null);
	}

	@Test
	void aForgedFenceIsRecoveredOnceWithAReasonAndAnAuditEvent() throws Exception {
		LockIdentity identity = LockIdentity.of(AbstractAdminEndpointTests.TENANT, PROGRAM, "starintel-target",
				"t-" + UUID.randomUUID(), "usernamegen", "default", null);
		LeaseRecord lease = acquire(identity);
		String id = "doc-" + UUID.randomUUID();
		HttpResponse<String> written = couch("PUT", "/" + DATABASE + "/" + id,
				"{\"value\":\"holder\",\"starintel_fence\":" + fence(identity, lease.fencingToken(), lease.leaseId())
						+ "}");
		assertThat(written.statusCode()).as(written.body()).isEqualTo(201);
		String rev = JSON.readTree(written.body()).path("rev").asString();
		long forged = 9007199254740990L;
		assertThat(couch("PUT", "/" + DATABASE + "/" + id, "{\"_rev\":\"" + rev
				+ "\",\"value\":\"forged\",\"starintel_fence\":" + fence(identity, forged, "lease_x") + "}").statusCode())
			.isEqualTo(201);
		AdminHttp http = new AdminHttp(this.port);
		String body = "{\"tenant_id\":\"" + AbstractAdminEndpointTests.TENANT + "\",\"program_id\":\"" + PROGRAM
				+ "\",\"document_id\":\"" + id + "\",\"reason\":\"INC-42 forged fence\"}";

		AbstractAdminEndpointTests.assertError(http.post("/recover-document", body, AbstractAdminEndpointTests.WORKER),
				403, "access_denied");
		AbstractAdminEndpointTests.assertError(
				http.post("/recover-document", body, AbstractAdminEndpointTests.SCOPED_ADMIN), 403, "access_denied");

		AdminHttp.Reply reply = http.post("/recover-document", body, AbstractAdminEndpointTests.ADMIN);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		assertThat(reply.code()).isEqualTo("lease_revoked");
		JsonNode recovered = reply.json().path("document_recovery");
		assertThat(recovered.path("status").asString()).isEqualTo("recovered");
		assertThat(recovered.path("replaced_token").asLong()).isEqualTo(forged);
		assertThat(recovered.path("fencing_token").asLong()).isEqualTo(lease.fencingToken());
		assertThat(recovered.path("restored_revision").asString()).isEqualTo(rev);
		JsonNode stored = JSON.readTree(couch("GET", "/" + DATABASE + "/" + id, null).body());
		assertThat(stored.path("value").asString()).isEqualTo("holder");
		assertThat(stored.path("starintel_fence").path("fencing_token").asLong()).isEqualTo(lease.fencingToken());
		String correlationId = reply.json().path("correlation_id").asString();
		Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(this.audit.events)
			.filteredOn((event) -> correlationId.equals(event.correlationId()))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.eventType()).isEqualTo(AuditEventType.REVOKE);
				assertThat(event.resultCode()).isEqualTo(ResultCode.LEASE_REVOKED);
				assertThat(event.reason()).isEqualTo("INC-42 forged fence");
			}));

		// nothing is forged any more: left alone, 400 with the rule
		AdminHttp.Reply again = http.post("/recover-document", body, AbstractAdminEndpointTests.ADMIN);
		AbstractAdminEndpointTests.assertError(again, 400, "invalid_lease_request");
		assertThat(again.json().path("msg").asString()).contains("not forged");
		assertThat(JSON.readTree(couch("GET", "/" + DATABASE + "/" + id, null).body()).path("_rev").asString())
			.isEqualTo(stored.path("_rev").asString());
		AbstractAdminEndpointTests.assertError(http.post("/recover-document", body.replace(id, "missing-" + id),
				AbstractAdminEndpointTests.ADMIN), 404, "lease_not_found");
		AbstractAdminEndpointTests.assertError(http.post("/recover-document", body.replace(id, "_design/x"),
				AbstractAdminEndpointTests.ADMIN), 400, "invalid_lease_request");
	}

	private LeaseRecord acquire(LockIdentity identity) {
		LeaseResult result = this.service.acquire(new AcquireRequest(identity, Identifiers.generate("req"),
				Instant.now().plusSeconds(10), new LeaseOwner("worker-w", "client-1", "cred-worker-a", "instance-1"),
				30_000, 300_000, Identifiers.generate("exec"), "job-1", "trace-1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	/**
	 * A fence written over plain HTTP. The holder's own revision names its lease: only a (lease id, token) pair the
	 * lease store issued is restored by a recovery (the fenced reader's rule, docs/fencing.md).
	 */
	private static String fence(LockIdentity identity, long token, String leaseId) {
		return "{\"lock_key_digest\":\"" + identity.keyDigest() + "\",\"fencing_token\":" + token
				+ ",\"lease_id\":\"" + leaseId + "\"}";
	}

	private static HttpResponse<String> couch(String method, String path, String body) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(COUCHDB.url() + path))
			.method(method, (body == null) ? HttpRequest.BodyPublishers.noBody()
					: HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", "application/json")
			.timeout(Duration.ofSeconds(10));
		if (!COUCHDB.user().isEmpty()) {
			request.header("Authorization", "Basic " + Base64.getEncoder()
				.encodeToString((COUCHDB.user() + ":" + COUCHDB.password()).getBytes(StandardCharsets.UTF_8)));
		}
		return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
