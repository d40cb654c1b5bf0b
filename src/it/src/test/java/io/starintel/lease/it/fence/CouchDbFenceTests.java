package io.starintel.lease.it.fence;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.starintel.lease.test.ServiceEnvironment;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.internal.FenceDesignDocument;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.fence.couchdb.FencedDocumentResult;
import io.starintel.lease.context.LeaseContext;
import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import io.starintel.lease.fence.couchdb.DocumentMarkStore;
import io.starintel.lease.fence.couchdb.FencedCouchDbReader;
import io.starintel.lease.fence.couchdb.FencedRead;
import io.starintel.lease.fence.couchdb.FencedReadStatus;
import io.starintel.lease.fence.couchdb.FenceRecovery;
import io.starintel.lease.fence.couchdb.FenceRecoveryStatus;
import io.starintel.lease.fence.couchdb.FencedDocumentRecovery;
import io.starintel.lease.core.ProgramScope;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * CouchDB enforcement point, run against both servers ({@link PouchDbServerFenceTests}: pouchdb-server,
 * {@link ApacheCouchDbFenceTests}: Apache CouchDB 3.4.3) with leases in the real Redis store: both contract rows,
 * the paused holder, the design document's server-side guard against every stale-write path over plain HTTP
 * (replicated writes with crafted revisions, branches from a stale revision, deletion and re-creation, purge), and
 * the fenced reader (conflicts, durable marks, forged tokens).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CouchDbFenceTests {

	static final ObjectMapper JSON = new ObjectMapper();

	/** A CouchDB-compatible server under test. */
	record CouchServer(String url, String user, String password, boolean purges) {

		boolean authenticated() {
			return !this.user.isEmpty();
		}

	}

	abstract CouchServer server();

	String url;

	FenceFixture fixture;

	org.ektorp.http.HttpClient http;

	CouchDbInstance instance;

	String database;

	CouchDbConnector raw;

	FencedCouchDbConnector fenced;

	FencedCouchDbReader reader;

	HttpClient client = HttpClient.newHttpClient();

	@BeforeAll
	void setUp() throws Exception {
		CouchServer server = server();
		this.url = server.url();
		fixture = new FenceFixture();
		StdHttpClient.Builder builder = new StdHttpClient.Builder().url(this.url).caching(false);
		if (server.authenticated()) {
			builder.username(server.user()).password(server.password());
		}
		http = builder.build();
		instance = new StdCouchDbInstance(http);
		database = "fence-it-" + UUID.randomUUID().toString().substring(0, 8);
		instance.createDatabase(database);
		raw = new StdCouchDbConnector(database, instance);
		DocumentMarkStore marks = new DocumentMarkStore(fixture.redis);
		fenced = new FencedCouchDbConnector(raw, fixture.guard, marks);
		reader = new FencedCouchDbReader(fenced, marks);
		assertThat(fenced.installDesignDocument()).isEqualTo(FenceDesignDocument.VERSION);
		// idempotent: a second installation leaves the installed version alone
		String rev = raw.get(Map.class, FenceDesignDocument.ID).get("_rev").toString();
		assertThat(FenceDesignDocument.install(raw)).isEqualTo(FenceDesignDocument.VERSION);
		assertThat(raw.get(Map.class, FenceDesignDocument.ID).get("_rev")).isEqualTo(rev);
	}

	@AfterAll
	void tearDown() {
		instance.deleteDatabase(database);
		http.shutdown();
		fixture.close();
	}

	@Test
	void formerHolderCommittingAfterExpiryIsLeaseLost() {
		LeaseContext a = fixture.acquire(fixture.identity("couch-expiry"), "alice", 300);
		Map<String, Object> doc = doc("result-expiry", "from A");
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(fenced.tryCreate(doc).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		}
		String acceptedRev = (String) doc.get("_rev");
		fixture.awaitExpired(a);
		doc.put("value", "late A");
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			FencedWriteResult late = fenced.tryUpdate(doc);
			assertThat(late.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
			assertThatExceptionOfType(FencedWriteRejectedException.class).isThrownBy(() -> fenced.update(doc))
				.satisfies(ex -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.LEASE_LOST));
		}
		assertThat(a.isLost()).isTrue();
		Map<?, ?> stored = raw.get(Map.class, "result-expiry");
		assertThat(stored.get("_rev")).isEqualTo(acceptedRev);
		assertThat(stored.get("value")).isEqualTo("from A");
	}

	@Test
	void formerHolderCommittingAfterNewAcquisitionIsRejected() {
		LeaseContext a = fixture.acquire(fixture.identity("couch-successor"), "alice", 300);
		Map<String, Object> docA = doc("result-successor", "from A");
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(fenced.tryCreate(docA).isAccepted()).isTrue();
		}
		fixture.awaitExpired(a);
		LeaseContext b = fixture.acquire(fixture.identity("couch-successor"), "bob", 5_000);
		assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
		Map<String, Object> docB = new HashMap<>(raw.get(Map.class, "result-successor"));
		docB.put("value", "from B");
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(fenced.tryUpdate(docB).isAccepted()).isTrue();
		}
		// A writes on top of B's revision: the guard refuses the lower token before anything is sent
		Map<String, Object> lateA = new HashMap<>(raw.get(Map.class, "result-successor"));
		lateA.put("value", "late A");
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			FencedWriteResult result = fenced.tryUpdate(lateA);
			assertThat(result.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
			assertThat(fenced.tryDelete(lateA).outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		}
		Map<?, ?> stored = raw.get(Map.class, "result-successor");
		assertThat(stored.get("value")).isEqualTo("from B");
		assertThat(fenceToken(stored)).isEqualTo(b.fencingToken());
	}

	@Test
	void pausedHolderResumingAfterSuccessorWroteIsRejectedByTheServer() throws Exception {
		LeaseContext a = fixture.acquire(fixture.identity("couch-paused"), "alice", 500);
		Map<String, Object> docA = doc("result-paused", "A v1");
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(fenced.tryCreate(docA).isAccepted()).isTrue();
		}
		CountDownLatch authorized = new CountDownLatch(1);
		CountDownLatch resume = new CountDownLatch(1);
		FencedCouchDbConnector pausing = new FencedCouchDbConnector(pauseBeforeUpdate(raw, authorized, resume),
				fixture.guard);
		docA.put("value", "A v2 (paused)");
		CompletableFuture<FencedWriteResult> writeA = CompletableFuture.supplyAsync(() -> {
			try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
				return pausing.tryUpdate(docA);
			}
		});
		assertThat(authorized.await(10, TimeUnit.SECONDS)).isTrue();
		fixture.awaitExpired(a);
		LeaseContext b = fixture.acquire(fixture.identity("couch-paused"), "bob", 5_000);
		Map<String, Object> docB = new HashMap<>(raw.get(Map.class, "result-paused"));
		docB.put("value", "B v1");
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(fenced.tryUpdate(docB).isAccepted()).isTrue();
		}
		resume.countDown();
		FencedWriteResult resultA = writeA.get(10, TimeUnit.SECONDS);
		// A was authorized (before expiry) but its write is conditioned on its _rev and token: the server refuses it
		assertThat(resultA.outcome()).isIn(FenceOutcome.CONFLICT, FenceOutcome.LEASE_LOST);
		Map<?, ?> stored = raw.get(Map.class, "result-paused");
		assertThat(stored.get("value")).isEqualTo("B v1");
		assertThat(stored.get("_rev")).isEqualTo(docB.get("_rev"));
		assertThat(fenceToken(stored)).isEqualTo(b.fencingToken());
	}

	@Test
	void lowerTokenWriteSentStraightOverHttpIsRefusedByTheDesignDocument() throws Exception {
		LeaseContext a = fixture.acquire(fixture.identity("couch-bypass"), "alice", 300);
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(fenced.tryCreate(doc("result-bypass", "from A")).isAccepted()).isTrue();
		}
		fixture.awaitExpired(a);
		LeaseContext b = fixture.acquire(fixture.identity("couch-bypass"), "bob", 5_000);
		Map<String, Object> docB = new HashMap<>(raw.get(Map.class, "result-bypass"));
		docB.put("value", "from B");
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(fenced.tryUpdate(docB).isAccepted()).isTrue();
		}
		String current = (String) docB.get("_rev");
		String digest = a.identity().keyDigest();
		HttpClient client = this.client;
		// A's lower token, current revision: only the token guard can refuse it
		String lower = "{\"_rev\":\"" + current + "\",\"value\":\"bypass A\",\"starintel_fence\":{\"lock_key_digest\":\""
				+ digest + "\",\"fencing_token\":" + a.fencingToken() + ",\"lease_id\":\"" + a.leaseId() + "\"}}";
		HttpResponse<String> refused = put(client, "result-bypass", lower);
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(refused.body()).contains("forbidden").contains("fencing token below the stored token");
		// dropping the fence, or deleting without one, is refused too
		assertThat(put(client, "result-bypass", "{\"_rev\":\"" + current + "\",\"value\":\"unfenced\"}").statusCode())
			.isEqualTo(403);
		HttpResponse<String> delete = send("DELETE", docUri("result-bypass", "?rev=" + current), null);
		assertThat(delete.statusCode()).isEqualTo(403);
		// a 1.8e15-sized token one above the stored one passes the exact numeric comparison
		String higher = lower.replace("\"fencing_token\":" + a.fencingToken(),
				"\"fencing_token\":" + (b.fencingToken() + 1)).replace("bypass A", "bypass higher");
		assertThat(put(client, "result-bypass", higher).statusCode()).isEqualTo(201);
		assertThat(raw.get(Map.class, "result-bypass").get("value")).isEqualTo("bypass higher");
	}

	@Test
	void bulkWritesAreStampedAndPerDocumentConflictsAreTyped() {
		LeaseContext b = fixture.acquire(fixture.identity("couch-bulk"), "bob", 5_000);
		Map<String, Object> first = doc("bulk-1", "one");
		Map<String, Object> second = doc("bulk-2", "two");
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			List<FencedDocumentResult> created = fenced.tryExecuteBulk(List.of(first, second));
			assertThat(created).allMatch(FencedDocumentResult::isAccepted);
			Map<String, Object> stale = doc("bulk-1", "stale rev");
			stale.put("_rev", "1-00000000000000000000000000000000");
			Map<String, Object> fresh = new HashMap<>(raw.get(Map.class, "bulk-2"));
			fresh.put("value", "two v2");
			List<FencedDocumentResult> mixed = fenced.tryExecuteBulk(List.of(stale, fresh));
			assertThat(mixed).filteredOn(r -> r.id().equals("bulk-1"))
				.singleElement()
				.satisfies(r -> assertThat(r.result().outcome()).isIn(FenceOutcome.CONFLICT, FenceOutcome.LEASE_LOST));
			assertThat(mixed).filteredOn(r -> r.id().equals("bulk-2")).singleElement()
				.satisfies(r -> assertThat(r.isAccepted()).isTrue());
			// deletion through the decorator carries the fence
			Map<String, Object> toDelete = new HashMap<>(raw.get(Map.class, "bulk-2"));
			assertThat(fenced.tryDelete(toDelete).isAccepted()).isTrue();
			assertThat(raw.get(Map.class, "bulk-2").get(FencedCouchDbConnector.DELETED_FIELD)).isEqualTo(true);
			assertThat(reader.read(b.identity().scope(), "bulk-2").status()).isEqualTo(FencedReadStatus.DELETED);
		}
		assertThat(raw.get(Map.class, "bulk-1").get("value")).isEqualTo("one");
		assertThat(fenceToken(raw.get(Map.class, "bulk-1"))).isEqualTo(b.fencingToken());
	}

	@Test
	void writeWithoutLeaseContextIsRefusedAndNeverSent() {
		Map<String, Object> doc = doc("no-context", "x");
		assertThat(fenced.tryCreate(doc).outcome()).isEqualTo(FenceOutcome.NO_LEASE_CONTEXT);
		assertThatExceptionOfType(FencedWriteRejectedException.class).isThrownBy(() -> fenced.create(doc))
			.satisfies(ex -> assertThat(ex.reason()).isEqualTo(Reason.NONE));
		assertThat(raw.contains("no-context")).isFalse();
	}

	// ---- stale-write paths of verify-fence.py: each must leave the successor's revision the winner ----

	/** A wrote revision 1 with its token, then B (higher token) wrote revision 2: A is the stale holder. */
	record Succession(LeaseContext a, LeaseContext b, String rev1, String rev2) {
	}

	Succession succession(String id) {
		LeaseContext a = fixture.acquire(fixture.identity("couch-" + id), "alice", 300);
		Map<String, Object> docA = doc(id, "from A");
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			assertThat(fenced.tryCreate(docA).isAccepted()).isTrue();
		}
		fixture.awaitExpired(a);
		LeaseContext b = fixture.acquire(fixture.identity("couch-" + id), "bob", 30_000);
		Map<String, Object> docB = new HashMap<>(raw.get(Map.class, id));
		docB.put("value", "from B");
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(fenced.tryUpdate(docB).isAccepted()).isTrue();
		}
		return new Succession(a, b, (String) docA.get("_rev"), (String) docB.get("_rev"));
	}

	static String fence(LeaseContext context, long token) {
		return "{\"lock_key_digest\":\"" + context.identity().keyDigest() + "\",\"fencing_token\":" + token
				+ ",\"lease_id\":\"" + context.leaseId() + "\"}";
	}

	static String hex() {
		return UUID.randomUUID().toString().replace("-", "");
	}

	/** The successor's revision is still the winner, with its token and no conflict; the reader agrees. */
	void assertSuccessorWins(String id, Succession s) {
		Map<?, ?> stored = raw.get(Map.class, id);
		assertThat(stored.get("_rev")).isEqualTo(s.rev2());
		assertThat(stored.get("value")).isEqualTo("from B");
		assertThat(fenceToken(stored)).isEqualTo(s.b().fencingToken());
		FencedRead read = reader.read(s.b().identity().scope(), id);
		assertThat(read.status()).isEqualTo(FencedReadStatus.CURRENT);
		assertThat(read.revision()).isEqualTo(s.rev2());
		assertThat(read.fencingToken()).isEqualTo(s.b().fencingToken());
		assertThat(read.conflicts()).isEmpty();
	}

	JsonNode bulkNewEditsFalse(String docJson) throws Exception {
		HttpResponse<String> response = send("POST", dbUri("_bulk_docs"),
				"{\"new_edits\":false,\"docs\":[" + docJson + "]}");
		assertThat(response.statusCode()).isEqualTo(201);
		return JSON.readTree(response.body());
	}

	@Test
	void replicatedWriteWithCraftedDisjointRevisionIsRefused() throws Exception {
		Succession s = succession("crafted-999");
		JsonNode result = bulkNewEditsFalse("{\"_id\":\"crafted-999\",\"_rev\":\"999-" + hex()
				+ "\",\"value\":\"stale A\",\"starintel_fence\":" + fence(s.a(), s.a().fencingToken()) + "}");
		assertThat(result.get(0).path("error").asText()).isEqualTo("forbidden");
		assertThat(result.get(0).path("reason").asText()).contains("replicated writes");
		// an unfenced disjoint history would shadow the fenced document just the same
		JsonNode unfenced = bulkNewEditsFalse(
				"{\"_id\":\"crafted-999\",\"_rev\":\"998-" + hex() + "\",\"value\":\"no fence\"}");
		assertThat(unfenced.get(0).path("error").asText()).isEqualTo("forbidden");
		assertSuccessorWins("crafted-999", s);
	}

	@Test
	void replicatedBranchFromTheStaleHoldersOwnFirstRevisionIsRefused() throws Exception {
		Succession s = succession("crafted-branch");
		String r2 = hex();
		String r3 = hex();
		JsonNode result = bulkNewEditsFalse("{\"_id\":\"crafted-branch\",\"_rev\":\"3-" + r3
				+ "\",\"_revisions\":{\"start\":3,\"ids\":[\"" + r3 + "\",\"" + r2 + "\",\""
				+ s.rev1().substring(s.rev1().indexOf('-') + 1) + "\"]},\"value\":\"stale A\",\"starintel_fence\":"
				+ fence(s.a(), s.a().fencingToken()) + "}");
		assertThat(result.get(0).path("error").asText()).isEqualTo("forbidden");
		assertSuccessorWins("crafted-branch", s);
	}

	@Test
	void putWithNewEditsFalseAndCraftedRevisionIsRefused() throws Exception {
		Succession s = succession("crafted-put");
		HttpResponse<String> response = send("PUT", docUri("crafted-put", "?new_edits=false"),
				"{\"_rev\":\"5-" + hex() + "\",\"value\":\"stale A\",\"starintel_fence\":"
						+ fence(s.a(), s.a().fencingToken()) + "}");
		assertThat(response.statusCode()).isEqualTo(403);
		assertThat(response.body()).contains("replicated writes");
		assertSuccessorWins("crafted-put", s);
	}

	@Test
	void normalStaleUpdateIsRefused() throws Exception {
		Succession s = succession("stale-update");
		HttpResponse<String> response = put(client, "stale-update", "{\"_rev\":\"" + s.rev2()
				+ "\",\"value\":\"stale A\",\"starintel_fence\":" + fence(s.a(), s.a().fencingToken()) + "}");
		assertThat(response.statusCode()).isEqualTo(403);
		assertThat(response.body()).contains("fencing token below the stored token");
		assertSuccessorWins("stale-update", s);
	}

	@Test
	void recreatingADeletedFencedDocumentWithALowerTokenIsRefused() throws Exception {
		Succession s = succession("recreate");
		// a real deletion of a fenced document is refused, even with the current holder's fence
		HttpResponse<String> deleted = put(client, "recreate", "{\"_rev\":\"" + s.rev2()
				+ "\",\"_deleted\":true,\"starintel_fence\":" + fence(s.b(), s.b().fencingToken()) + "}");
		assertThat(deleted.statusCode()).isEqualTo(403);
		assertThat(send("DELETE", docUri("recreate", "?rev=" + s.rev2()), null).statusCode()).isEqualTo(403);
		// the fenced deletion is a tombstone that keeps B's fence
		try (LeaseContext.Scope scope = LeaseContext.bind(s.b())) {
			assertThat(fenced.tryDelete("recreate", s.rev2()).isAccepted()).isTrue();
		}
		assertThat(reader.read(s.b().identity().scope(), "recreate").status()).isEqualTo(FencedReadStatus.DELETED);
		String tombstone = (String) raw.get(Map.class, "recreate").get("_rev");
		// A re-creates the id with its lower token: as a new document (the id exists) and over the tombstone
		String stale = "\"value\":\"stale A\",\"starintel_fence\":" + fence(s.a(), s.a().fencingToken()) + "}";
		assertThat(put(client, "recreate", "{" + stale).statusCode()).isIn(403, 409);
		HttpResponse<String> over = put(client, "recreate", "{\"_rev\":\"" + tombstone + "\"," + stale);
		assertThat(over.statusCode()).isEqualTo(403);
		assertThat(over.body()).contains("fencing token below the stored token");
		assertThat(raw.get(Map.class, "recreate").get("_rev")).isEqualTo(tombstone);
		// the current holder re-creates through the decorator: written over the tombstone, token-checked
		try (LeaseContext.Scope scope = LeaseContext.bind(s.b())) {
			assertThat(fenced.tryCreate(doc("recreate", "B again")).isAccepted()).isTrue();
		}
		FencedRead read = reader.read(s.b().identity().scope(), "recreate");
		assertThat(read.status()).isEqualTo(FencedReadStatus.CURRENT);
		assertThat(read.document().get("value").asText()).isEqualTo("B again");
	}

	@Test
	void purgeThenRecreateWithALowerTokenIsNeverReadAsCurrent() throws Exception {
		Succession s = succession("purged");
		HttpResponse<String> purge = send("POST", dbUri("_purge"),
				"{\"purged\":[\"" + s.rev2() + "\",\"" + s.rev1() + "\"]}");
		if (!server().purges()) {
			// pouchdb-server 4.2 has no _purge (documented): nothing changes
			assertThat(purge.statusCode()).isEqualTo(400);
			assertSuccessorWins("purged", s);
			return;
		}
		assertThat(purge.statusCode()).isEqualTo(201);
		// _purge bypasses validate_doc_update: the stale holder's re-create is stored ...
		HttpResponse<String> recreated = put(client, "purged",
				"{\"value\":\"stale A\",\"starintel_fence\":" + fence(s.a(), s.a().fencingToken()) + "}");
		assertThat(recreated.statusCode()).isEqualTo(201);
		// ... but the fenced reader compares it with the document's durable mark and never returns it as current
		FencedRead read = reader.read(s.b().identity().scope(), "purged");
		assertThat(read.status()).isEqualTo(FencedReadStatus.BELOW_MARK);
		assertThat(read.document()).isNull();
		assertThat(read.fencingToken()).isEqualTo(s.a().fencingToken());
		assertThat(read.mark()).isEqualTo(s.b().fencingToken());
	}

	@Test
	void replicatorsStaleBranchWinsInCouchDbButTheFencedReadResolvesToTheHighestTokenAndReportsTheConflict()
			throws Exception {
		Succession s = succession("replicated");
		String stale = "{\"_id\":\"replicated\",\"_rev\":\"999-" + hex()
				+ "\",\"value\":\"stale A\",\"starintel_fence\":" + fence(s.a(), s.a().fencingToken()) + "}";
		if (!server().authenticated()) {
			// pouchdb-server runs without users (everyone is _admin): no one has the replicator role
			assertThat(bulkNewEditsFalse(stale).get(0).path("error").asText()).isEqualTo("forbidden");
			assertSuccessorWins("replicated", s);
			return;
		}
		String user = "fence-replicator-" + UUID.randomUUID().toString().substring(0, 8);
		URI userUri = URI.create(this.url + "/_users/org.couchdb.user:" + user);
		assertThat(send("PUT", userUri, "{\"name\":\"" + user + "\",\"password\":\"secret-" + user
				+ "\",\"roles\":[\"starintel_fence_replicator\"],\"type\":\"user\"}").statusCode()).isEqualTo(201);
		try {
			assertThat(send("PUT", dbUri("_security"), "{\"admins\":{\"names\":[],\"roles\":[]},"
					+ "\"members\":{\"names\":[],\"roles\":[\"starintel_fence_replicator\"]}}").statusCode())
				.isEqualTo(200);
			HttpResponse<String> replicated = this.client.send(HttpRequest.newBuilder(dbUri("_bulk_docs"))
				.POST(HttpRequest.BodyPublishers.ofString("{\"new_edits\":false,\"docs\":[" + stale + "]}"))
				.header("Content-Type", "application/json")
				.header("Authorization", basic(user, "secret-" + user))
				.timeout(Duration.ofSeconds(10))
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(replicated.statusCode()).isEqualTo(201);
			assertThat(JSON.readTree(replicated.body()).path(0).has("error")).isFalse();
			// CouchDB picks the deeper revision: the stale token is its winner now
			assertThat(fenceToken(raw.get(Map.class, "replicated"))).isEqualTo(s.a().fencingToken());
			FencedRead read = reader.read(s.b().identity().scope(), "replicated");
			assertThat(read.status()).isEqualTo(FencedReadStatus.CURRENT);
			assertThat(read.revision()).isEqualTo(s.rev2());
			assertThat(read.fencingToken()).isEqualTo(s.b().fencingToken());
			assertThat(read.document().get("value").asText()).isEqualTo("from B");
			assertThat(read.isConflicted()).isTrue();
			assertThat(read.conflicts()).singleElement().asString().startsWith("999-");
		}
		finally {
			send("PUT", dbUri("_security"), "{}");
			HttpResponse<String> current = send("GET", userUri, null);
			String rev = JSON.readTree(current.body()).path("_rev").asText();
			send("DELETE", URI.create(userUri + "?rev=" + rev), null);
		}
	}

	@Test
	void forgedTokenAboveTheIssuedCounterIsNeverReadAsCurrent() throws Exception {
		Succession s = succession("forged");
		// the design document accepts any higher token; only the lease store knows which tokens were issued
		HttpResponse<String> forged = put(client, "forged", "{\"_rev\":\"" + s.rev2()
				+ "\",\"value\":\"forged\",\"starintel_fence\":" + fence(s.a(), 9007199254740990L) + "}");
		assertThat(forged.statusCode()).isEqualTo(201);
		FencedRead read = reader.read(s.b().identity().scope(), "forged");
		assertThat(read.status()).isEqualTo(FencedReadStatus.FORGED);
		assertThat(read.document()).isNull();
	}

	/**
	 * A forged token blocks the legitimate holder; a recovery by a user with the recovery role (Apache CouchDB: a
	 * {@code _users} user; pouchdb-server has no users, so nobody can recover there) replaces it by the identity's
	 * issued counter and restores the holder's content, after which the holder writes again and the stale holder is
	 * still refused. Without the role, a fence that claims to be a recovery is refused.
	 */
	@Test
	void forgedFenceIsRecoveredByTheRecoveryRoleAndTheHolderWritesAgain() throws Exception {
		Succession s = succession("recover");
		long forgedToken = 9007199254740990L;
		assertThat(put(client, "recover", "{\"_rev\":\"" + s.rev2() + "\",\"value\":\"forged\",\"starintel_fence\":"
				+ fence(s.b(), forgedToken) + "}").statusCode()).isEqualTo(201);
		Map<String, Object> blocked = new HashMap<>(raw.get(Map.class, "recover"));
		blocked.put("value", "B after the forgery");
		try (LeaseContext.Scope scope = LeaseContext.bind(s.b())) {
			assertThat(fenced.tryUpdate(blocked).outcome()).as("the forged token blocks the holder")
				.isEqualTo(FenceOutcome.LEASE_LOST);
		}
		String forgedRev = raw.get(Map.class, "recover").get("_rev").toString();
		String claimed = fence(s.b(), 1).replace("}", ",\"recovery\":{\"recovery_id\":\"self-made\"}}");
		HttpResponse<String> unauthorized = put(client, "recover",
				"{\"_rev\":\"" + forgedRev + "\",\"value\":\"mine\",\"starintel_fence\":" + claimed + "}");
		assertThat(unauthorized.statusCode()).as("a recovery fence without the role").isEqualTo(403);
		assertThat(unauthorized.body()).contains("starintel_fence_recovery");
		DocumentMarkStore marks = new DocumentMarkStore(fixture.redis);
		ProgramScope scope = s.b().identity().scope();
		if (!server().authenticated()) {
			FenceRecovery refused = new FencedDocumentRecovery(raw, marks, Clock.systemUTC()).recover(scope,
					"recover", "corr-refused");
			assertThat(refused.status()).isEqualTo(FenceRecoveryStatus.REFUSED_BY_SERVER);
			assertThat(raw.get(Map.class, "recover").get("_rev")).isEqualTo(forgedRev);
			return;
		}
		FenceRecovery recovered = recoverWithTheRecoveryRole(scope, "recover");
		assertThat(recovered.status()).isEqualTo(FenceRecoveryStatus.RECOVERED);
		assertThat(recovered.replacedToken()).isEqualTo(forgedToken);
		assertThat(recovered.token()).as("the identity's issued counter: the holder's token")
			.isEqualTo(s.b().fencingToken());
		assertThat(recovered.restoredFrom()).isEqualTo(s.rev2());
		FencedRead read = reader.read(scope, "recover");
		assertThat(read.status()).isEqualTo(FencedReadStatus.CURRENT);
		assertThat(read.document().get("value").asText()).isEqualTo("from B");
		assertThat(read.fencingToken()).isEqualTo(s.b().fencingToken());
		assertThat(recoverWithTheRecoveryRole(scope, "recover").status()).isEqualTo(FenceRecoveryStatus.NOT_FORGED);
		// the stale holder stays below the recovered token; the holder writes again
		String recoveredRev = raw.get(Map.class, "recover").get("_rev").toString();
		assertThat(put(client, "recover", "{\"_rev\":\"" + recoveredRev + "\",\"value\":\"stale A\","
				+ "\"starintel_fence\":" + fence(s.a(), s.a().fencingToken()) + "}").statusCode()).isEqualTo(403);
		Map<String, Object> again = new HashMap<>(raw.get(Map.class, "recover"));
		again.put("value", "B again");
		try (LeaseContext.Scope bound = LeaseContext.bind(s.b())) {
			assertThat(fenced.tryUpdate(again).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		}
		assertThat(reader.read(scope, "recover").document().get("value").asText()).isEqualTo("B again");
	}

	/**
	 * A forged fence whose token is a little above the identity's issued counter (a forger with database credentials
	 * and the holder's digest) stays forged once a later lease's token has overtaken it: the pair (lease id, token)
	 * was never issued. The holder's own untouched document on the same identity still reads as current, and the
	 * recovery treats the forged one as forged (Apache CouchDB: recovered to the holder's content; pouchdb-server: no
	 * user can recover, refused by the server, never {@code not_forged}).
	 */
	@Test
	void aForgedTokenThatALaterLeaseOvertakesStaysForgedAndIsRecovered() throws Exception {
		LeaseContext f1 = fixture.acquire(fixture.identity("couch-ahead"), "alice", 30_000);
		Map<String, Object> ahead = doc("ahead", "from f1");
		Map<String, Object> untouched = doc("ahead-untouched", "from f1");
		try (LeaseContext.Scope scope = LeaseContext.bind(f1)) {
			assertThat(fenced.tryCreate(ahead).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
			assertThat(fenced.tryCreate(untouched).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		}
		String f1Rev = (String) ahead.get("_rev");
		// 300 ms of backend time ahead (tokens are backend ms * 1024): the next lease after that is above it
		long forgedToken = f1.fencingToken() + 1024 * 300;
		String forgedFence = "{\"lock_key_digest\":\"" + f1.identity().keyDigest() + "\",\"fencing_token\":"
				+ forgedToken + ",\"lease_id\":\"lease_bogus\"}";
		assertThat(put(client, "ahead", "{\"_rev\":\"" + f1Rev + "\",\"value\":\"FORGED-AHEAD\",\"starintel_fence\":"
				+ forgedFence + "}").statusCode()).isEqualTo(201);
		ProgramScope scope = f1.identity().scope();
		assertThat(reader.read(scope, "ahead").status()).isEqualTo(FencedReadStatus.FORGED);
		assertThat(fixture.store.release(new ReleaseRequest(f1.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> fixture.serverMillis() * 1024 > forgedToken);
		LeaseContext f2 = fixture.acquire(fixture.identity("couch-ahead"), "bob", 30_000);
		assertThat(f2.fencingToken()).as("the next lease's token is above the forged one").isGreaterThan(forgedToken);
		FencedRead read = reader.read(scope, "ahead");
		assertThat(read.status()).isEqualTo(FencedReadStatus.FORGED);
		assertThat(read.document()).isNull();
		FencedRead legit = reader.read(scope, "ahead-untouched");
		assertThat(legit.status()).as("the holder's write that no one overwrote").isEqualTo(FencedReadStatus.CURRENT);
		assertThat(legit.fencingToken()).isEqualTo(f1.fencingToken());
		assertThat(legit.document().get("value").asText()).isEqualTo("from f1");
		if (!server().authenticated()) {
			FenceRecovery refused = new FencedDocumentRecovery(raw, new DocumentMarkStore(fixture.redis),
					Clock.systemUTC()).recover(scope, "ahead", "corr-ahead");
			assertThat(refused.status()).as("forged, but nobody has the recovery role here")
				.isEqualTo(FenceRecoveryStatus.REFUSED_BY_SERVER);
			return;
		}
		FenceRecovery recovered = recoverWithTheRecoveryRole(scope, "ahead");
		assertThat(recovered.status()).isEqualTo(FenceRecoveryStatus.RECOVERED);
		assertThat(recovered.replacedToken()).isEqualTo(forgedToken);
		assertThat(recovered.token()).as("the issued counter: f2's token").isEqualTo(f2.fencingToken());
		assertThat(recovered.restoredFrom()).isEqualTo(f1Rev);
		FencedRead after = reader.read(scope, "ahead");
		assertThat(after.status()).isEqualTo(FencedReadStatus.CURRENT);
		assertThat(after.document().get("value").asText()).isEqualTo("from f1");
		Map<String, Object> next = new HashMap<>(raw.get(Map.class, "ahead"));
		next.put("value", "from f2");
		try (LeaseContext.Scope bound = LeaseContext.bind(f2)) {
			assertThat(fenced.tryUpdate(next).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		}
		assertThat(reader.read(scope, "ahead").document().get("value").asText()).isEqualTo("from f2");
	}

	/**
	 * A fence above the document's mark (a write whose mark is pending: here a writer without a mark store) reads as
	 * current only with a (lease id, token) pair the lease store issued for the document's identity: the holder's own
	 * write does after its lease ended; a later lease's token under the earlier lease id, and another identity's real
	 * pair under this identity's digest, are forged (the counter alone would accept both).
	 */
	@Test
	void aFenceAboveTheMarkIsCurrentOnlyWithAPairTheStoreIssuedForTheIdentity() throws Exception {
		FencedCouchDbConnector unmarked = new FencedCouchDbConnector(raw, fixture.guard);
		LeaseContext other = fixture.acquire(fixture.identity("couch-pair-other"), "carol", 30_000);
		LeaseContext f1 = fixture.acquire(fixture.identity("couch-pair"), "alice", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(f1)) {
			assertThat(unmarked.tryCreate(doc("pair-own", "from f1")).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		}
		assertThat(fixture.store.release(new ReleaseRequest(f1.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseContext f2 = fixture.acquire(fixture.identity("couch-pair"), "bob", 30_000);
		String digest = f1.identity().keyDigest();
		assertThat(put(client, "pair-mixed", "{\"value\":\"x\",\"starintel_fence\":{\"lock_key_digest\":\"" + digest
				+ "\",\"fencing_token\":" + f2.fencingToken() + ",\"lease_id\":\"" + f1.leaseId() + "\"}}").statusCode())
			.isEqualTo(201);
		assertThat(put(client, "pair-other", "{\"value\":\"x\",\"starintel_fence\":{\"lock_key_digest\":\"" + digest
				+ "\",\"fencing_token\":" + other.fencingToken() + ",\"lease_id\":\"" + other.leaseId() + "\"}}")
			.statusCode()).isEqualTo(201);
		ProgramScope scope = f1.identity().scope();
		FencedRead own = reader.read(scope, "pair-own");
		assertThat(own.status()).isEqualTo(FencedReadStatus.CURRENT);
		assertThat(own.mark()).as("no mark was raised").isZero();
		assertThat(reader.read(scope, "pair-mixed").status()).isEqualTo(FencedReadStatus.FORGED);
		assertThat(reader.read(scope, "pair-other").status()).isEqualTo(FencedReadStatus.FORGED);
	}

	/**
	 * Fences the lease store never issued are forged, never current: an identity that was never granted a lease, a
	 * digest that is not one, a digest that is a JSON object, a token that is not an integer. The design document
	 * refuses the last two, so they are written into a database without it (an admin can remove it), where the
	 * reader must still fail closed. The recovery cannot pick an identity or a token for them:
	 * {@code unknown_identity}.
	 */
	@Test
	void fencesTheLeaseStoreNeverIssuedAreForgedNeverCurrent() throws Exception {
		ProgramScope scope = fixture.identity("couch-never").scope();
		String unknownDigest = "A".repeat(43);
		assertThat(put(client, "never-unknown", "{\"value\":\"x\",\"starintel_fence\":{\"lock_key_digest\":\""
				+ unknownDigest + "\",\"fencing_token\":5,\"lease_id\":\"lease_bogus\"}}").statusCode())
			.isEqualTo(201);
		assertThat(put(client, "never-malformed", "{\"value\":\"x\",\"starintel_fence\":{\"lock_key_digest\":"
				+ "\"a b {x} c\",\"fencing_token\":5,\"lease_id\":\"lease_bogus\"}}").statusCode()).isEqualTo(201);
		String unguarded = database + "-unguarded";
		instance.createDatabase(unguarded);
		try {
			CouchDbConnector plain = new StdCouchDbConnector(unguarded, instance);
			Map<String, Object> objectDigest = doc("never-object", "x");
			objectDigest.put("starintel_fence", Map.of("lock_key_digest", Map.of("d", unknownDigest), "fencing_token", 5,
					"lease_id", "lease_bogus"));
			plain.create(objectDigest);
			Map<String, Object> fraction = doc("never-fraction", "x");
			fraction.put("starintel_fence", Map.of("lock_key_digest", unknownDigest, "fencing_token", 5.5, "lease_id",
					"lease_bogus"));
			plain.create(fraction);
			DocumentMarkStore marks = new DocumentMarkStore(fixture.redis);
			FencedCouchDbReader unguardedReader = new FencedCouchDbReader(plain, marks);
			FencedDocumentRecovery unguardedRecovery = new FencedDocumentRecovery(plain, marks, Clock.systemUTC());
			FencedDocumentRecovery recovery = new FencedDocumentRecovery(raw, marks, Clock.systemUTC());
			for (String id : List.of("never-unknown", "never-malformed")) {
				assertThat(reader.read(scope, id).status()).as(id).isEqualTo(FencedReadStatus.FORGED);
				assertThat(reader.read(scope, id).document()).as(id).isNull();
				assertThat(recovery.recover(scope, id, "corr-" + id).status()).as(id)
					.isEqualTo(FenceRecoveryStatus.UNKNOWN_IDENTITY);
			}
			for (String id : List.of("never-object", "never-fraction")) {
				assertThat(unguardedReader.read(scope, id).status()).as(id).isEqualTo(FencedReadStatus.FORGED);
				assertThat(unguardedRecovery.recover(scope, id, "corr-" + id).status()).as(id)
					.isEqualTo(FenceRecoveryStatus.UNKNOWN_IDENTITY);
			}
		}
		finally {
			instance.deleteDatabase(unguarded);
		}
	}

	/**
	 * A bulk write naming one document twice (a stale and a current revision) is refused before anything is
	 * authorized or sent, every entry {@code fenced_write_invalid_request}: results matched by id could not tell the
	 * stored entry from the refused one.
	 */
	@Test
	void aBulkWriteNamingADocumentTwiceIsAnInvalidRequestAndNothingIsSent() {
		LeaseContext holder = fixture.acquire(fixture.identity("couch-dup"), "bob", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(holder)) {
			Map<String, Object> dup = doc("dup1", "first");
			assertThat(fenced.tryCreate(dup).isAccepted()).isTrue();
			String old = (String) dup.get("_rev");
			dup.put("value", "second");
			assertThat(fenced.tryUpdate(dup).isAccepted()).isTrue();
			String current = (String) dup.get("_rev");
			Map<String, Object> stale = doc("dup1", "stale-rev");
			stale.put("_rev", old);
			Map<String, Object> fresh = doc("dup1", "current-rev");
			fresh.put("_rev", current);
			List<FencedDocumentResult> results = fenced.tryExecuteBulk(List.of(stale, fresh));
			assertThat(results).hasSize(2).allSatisfy((r) -> {
				assertThat(r.id()).isEqualTo("dup1");
				assertThat(r.isAccepted()).isFalse();
				assertThat(r.result().outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
				assertThat(r.result().stamp()).as("never authorized").isNull();
			});
			assertThat(fenced.executeBulk(List.of(doc("dup2", "a"), doc("dup2", "b")))).hasSize(2)
				.allSatisfy((e) -> assertThat(e.getError()).isEqualTo("fenced_write_invalid_request"));
		}
		Map<?, ?> stored = raw.get(Map.class, "dup1");
		assertThat(stored.get("value")).as("nothing was sent").isEqualTo("second");
		assertThat(raw.contains("dup2")).isFalse();
	}

	/**
	 * A document that cannot be written as a fenced document (no {@code _id} for an update, not a document at all, an
	 * immutable Map, also inside a bulk write) is {@code fenced_write_invalid_request} before anything is authorized:
	 * no authorize-commit call (so no audit of an authorized commit and no raised high-water mark), nothing sent,
	 * nothing stamped into the caller's document.
	 */
	@Test
	void aDocumentThatCannotBeWrittenIsAnInvalidRequestBeforeAnyAuthorization() {
		AtomicInteger authorizations = new AtomicInteger();
		FenceGuard counting = new FenceGuard((request) -> {
			authorizations.incrementAndGet();
			return fixture.store.authorizeCommit(request);
		}, FenceGuard.DEFAULT_TIMEOUT, Clock.systemUTC());
		FencedCouchDbConnector checked = new FencedCouchDbConnector(raw, counting, new DocumentMarkStore(fixture.redis));
		LeaseContext holder = fixture.acquire(fixture.identity("couch-invalid"), "bob", 30_000);
		String identityKey = FenceCalls.identityKey(holder.identity());
		Object highWaterMark = fixture.redis.opsForHash().get(identityKey, "h");
		try (LeaseContext.Scope scope = LeaseContext.bind(holder)) {
			Map<String, Object> noId = new LinkedHashMap<>(Map.of("value", "no id"));
			FencedWriteResult update = checked.tryUpdate(noId);
			assertThat(update.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
			assertThat(update.stamp()).as("never authorized").isNull();
			assertThat(update.detail()).contains("_id");
			assertThat(noId).as("nothing stamped").doesNotContainKey("starintel_fence");
			assertThat(checked.tryCreate("not a document").outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
			FencedWriteResult immutable = checked.tryCreate(Map.of("_id", "invalid-immutable", "value", "x"));
			assertThat(immutable.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
			assertThat(immutable.detail()).contains("immutable");
			assertThat(checked.tryCreate("invalid-immutable-2", Map.of("value", "x")).outcome())
				.isEqualTo(FenceOutcome.INVALID_REQUEST);
			assertThat(checked.tryDelete(null, "1-abc").outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
			Map<String, Object> fine = doc("invalid-bulk-fine", "x");
			assertThat(checked.tryExecuteBulk(List.of(fine, Map.of("_id", "invalid-bulk-immutable")))).hasSize(2)
				.allSatisfy((r) -> assertThat(r.result().outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST));
			assertThat(fine).doesNotContainKey("starintel_fence");
			assertThatExceptionOfType(FencedWriteRejectedException.class)
				.isThrownBy(() -> checked.create(Map.of("_id", "invalid-immutable-3")))
				.satisfies((ex) -> assertThat(ex.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST));
			assertThat(authorizations).as("no authorize-commit call").hasValue(0);
			assertThat(fixture.redis.opsForHash().get(identityKey, "h")).as("high-water mark untouched")
				.isEqualTo(highWaterMark);
			// a valid write right after is authorized once and accepted
			assertThat(checked.tryCreate(doc("invalid-then-valid", "x")).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
			assertThat(authorizations).hasValue(1);
		}
		assertThat(raw.contains("invalid-immutable")).isFalse();
		assertThat(raw.contains("invalid-immutable-2")).isFalse();
		assertThat(raw.contains("invalid-bulk-fine")).isFalse();
	}

	/**
	 * A document whose durable mark names another lock identity (here a mark planted without a write, as a stale
	 * holder's retryMark could before it was authorized) gets {@code fenced_write_accepted_mark_refused}: the write
	 * stands, the mark can never be raised (not {@code backend_unreachable}, not "retry"), retryMark answers the same,
	 * and the reader reports the document {@code FORGED} until an operator recovers it.
	 */
	@Test
	void aMarkOfAnotherIdentityIsReportedRefusedNotPending() {
		String id = "mark-taken-" + UUID.randomUUID().toString().substring(0, 8);
		LeaseContext other = fixture.acquire(fixture.identity("couch-mark-owner-" + id), "alice", 30_000);
		DocumentMarkStore marks = new DocumentMarkStore(fixture.redis);
		assertThat(marks.raise(other.identity().scope(), database, id, other.identity().keyDigest(),
				other.fencingToken())).isTrue();
		LeaseContext e = fixture.acquire(fixture.identity("couch-mark-writer-" + id), "erin", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(e)) {
			FencedWriteResult result = fenced.tryCreate(doc(id, "from E"));
			assertThat(result.outcome()).isEqualTo(FenceOutcome.ACCEPTED_MARK_REFUSED);
			assertThat(result.outcome().wireName()).isEqualTo("fenced_write_accepted_mark_refused");
			assertThat(result.isAccepted()).as("the write stands").isTrue();
			assertThat(result.isMarkPending()).as("not retryable").isFalse();
			assertThat(result.reason()).isNotEqualTo(Reason.BACKEND_UNREACHABLE);
			assertThat(result.detail()).contains("another lock identity").doesNotContain("retry with");
			assertThat(fenced.documents().retryMark(id, result)).isEqualTo(result);
		}
		assertThat(raw.get(Map.class, id).get("value")).isEqualTo("from E");
		assertThat(marks.read(e.identity().scope(), database, id, null).digest())
			.isEqualTo(other.identity().keyDigest());
		assertThat(reader.read(e.identity().scope(), id).status()).isEqualTo(FencedReadStatus.FORGED);
	}

	/** Runs a recovery as a fresh CouchDB user with the recovery role (Apache CouchDB only), then removes the user. */
	FenceRecovery recoverWithTheRecoveryRole(ProgramScope scope, String id) throws Exception {
		String user = "fence-recovery-" + UUID.randomUUID().toString().substring(0, 8);
		URI userUri = URI.create(this.url + "/_users/org.couchdb.user:" + user);
		assertThat(send("PUT", userUri, "{\"name\":\"" + user + "\",\"password\":\"secret-" + user
				+ "\",\"roles\":[\"" + FencedDocumentRecovery.RECOVERY_ROLE + "\"],\"type\":\"user\"}").statusCode())
			.isEqualTo(201);
		org.ektorp.http.HttpClient recoveryHttp = new StdHttpClient.Builder().url(this.url)
			.caching(false)
			.username(user)
			.password("secret-" + user)
			.build();
		try {
			assertThat(send("PUT", dbUri("_security"), "{\"admins\":{\"names\":[],\"roles\":[]},"
					+ "\"members\":{\"names\":[],\"roles\":[\"" + FencedDocumentRecovery.RECOVERY_ROLE + "\"]}}")
				.statusCode()).isEqualTo(200);
			return new FencedDocumentRecovery(new StdCouchDbConnector(database, new StdCouchDbInstance(recoveryHttp)),
					new DocumentMarkStore(fixture.redis), Clock.systemUTC())
				.recover(scope, id, "corr-" + id);
		}
		finally {
			recoveryHttp.shutdown();
			send("PUT", dbUri("_security"), "{}");
			HttpResponse<String> current = send("GET", userUri, null);
			String rev = JSON.readTree(current.body()).path("_rev").asText();
			send("DELETE", URI.create(userUri + "?rev=" + rev), null);
		}
	}

	static Map<String, Object> doc(String id, String value) {
		Map<String, Object> doc = new LinkedHashMap<>();
		doc.put("_id", id);
		doc.put("value", value);
		return doc;
	}

	static long fenceToken(Map<?, ?> doc) {
		return ((Number) ((Map<?, ?>) doc.get("starintel_fence")).get("fencing_token")).longValue();
	}

	HttpResponse<String> put(HttpClient client, String id, String body) throws Exception {
		return send("PUT", docUri(id, ""), body);
	}

	HttpResponse<String> send(String method, URI uri, String body) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri)
			.method(method, (body == null) ? HttpRequest.BodyPublishers.noBody()
					: HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", "application/json")
			.timeout(Duration.ofSeconds(10));
		if (server().authenticated()) {
			request.header("Authorization", basic(server().user(), server().password()));
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	static String basic(String user, String password) {
		return "Basic " + java.util.Base64.getEncoder()
			.encodeToString((user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
	}

	URI docUri(String id, String query) {
		return URI.create(this.url + "/" + database + "/" + id + query);
	}

	URI dbUri(String path) {
		return URI.create(this.url + "/" + database + "/" + path);
	}

	/** A connector whose {@code update} signals and then waits: the holder pauses after its authorization. */
	CouchDbConnector pauseBeforeUpdate(CouchDbConnector target, CountDownLatch authorized,
			CountDownLatch resume) {
		return (CouchDbConnector) Proxy.newProxyInstance(CouchDbFenceTests.class.getClassLoader(),
				new Class<?>[] { CouchDbConnector.class }, (proxy, method, args) -> {
					if (method.getName().equals("update") && args.length == 1) {
						authorized.countDown();
						if (!resume.await(20, TimeUnit.SECONDS)) {
							throw new IllegalStateException("never resumed");
						}
					}
					try {
						return method.invoke(target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

}
