package io.starintel.lease.it.fence;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.it.ServiceEnvironment;
import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.FenceDesignDocument;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.fence.couchdb.FencedDocumentResult;
import io.starintel.lease.job.LeaseContext;
import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * CouchDB enforcement point against the real CouchDB-compatible server ({@code STARINTEL_COUCHDB_URL} or
 * pouchdb-server on 127.0.0.1:5984) with leases in the real Redis store: both contract rows, the paused holder,
 * the design document's server-side guard (bypass over plain HTTP), and bulk writes.
 */
class CouchDbFenceTests {

	static final String URL = ServiceEnvironment.env("STARINTEL_COUCHDB_URL", "http://127.0.0.1:5984");

	static FenceFixture fixture;

	static org.ektorp.http.HttpClient http;

	static CouchDbInstance instance;

	static String database;

	static CouchDbConnector raw;

	static FencedCouchDbConnector fenced;

	@BeforeAll
	static void setUp() throws Exception {
		fixture = new FenceFixture();
		http = new StdHttpClient.Builder().url(URL).caching(false).build();
		instance = new StdCouchDbInstance(http);
		database = "fence-it-" + UUID.randomUUID().toString().substring(0, 8);
		instance.createDatabase(database);
		raw = new StdCouchDbConnector(database, instance);
		fenced = new FencedCouchDbConnector(raw, fixture.guard);
		assertThat(FenceDesignDocument.install(fenced)).isEqualTo(FenceDesignDocument.VERSION);
		// idempotent: a second installation leaves the installed version alone
		String rev = raw.get(Map.class, FenceDesignDocument.ID).get("_rev").toString();
		assertThat(FenceDesignDocument.install(raw)).isEqualTo(FenceDesignDocument.VERSION);
		assertThat(raw.get(Map.class, FenceDesignDocument.ID).get("_rev")).isEqualTo(rev);
	}

	@AfterAll
	static void tearDown() {
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
		HttpClient client = HttpClient.newHttpClient();
		// A's lower token, current revision: only the token guard can refuse it
		String lower = "{\"_rev\":\"" + current + "\",\"value\":\"bypass A\",\"starintel_fence\":{\"lock_key_digest\":\""
				+ digest + "\",\"fencing_token\":" + a.fencingToken() + ",\"lease_id\":\"" + a.leaseId() + "\"}}";
		HttpResponse<String> refused = put(client, "result-bypass", lower);
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(refused.body()).contains("forbidden").contains("fencing token below the stored token");
		// dropping the fence, or deleting without one, is refused too
		assertThat(put(client, "result-bypass", "{\"_rev\":\"" + current + "\",\"value\":\"unfenced\"}").statusCode())
			.isEqualTo(403);
		HttpResponse<String> delete = client.send(HttpRequest.newBuilder(docUri("result-bypass", "?rev=" + current))
			.DELETE()
			.timeout(Duration.ofSeconds(5))
			.build(), HttpResponse.BodyHandlers.ofString());
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
			assertThat(raw.contains("bulk-2")).isFalse();
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

	static Map<String, Object> doc(String id, String value) {
		Map<String, Object> doc = new LinkedHashMap<>();
		doc.put("_id", id);
		doc.put("value", value);
		return doc;
	}

	static long fenceToken(Map<?, ?> doc) {
		return ((Number) ((Map<?, ?>) doc.get("starintel_fence")).get("fencing_token")).longValue();
	}

	static HttpResponse<String> put(HttpClient client, String id, String body) throws Exception {
		return client.send(HttpRequest.newBuilder(docUri(id, ""))
			.PUT(HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", "application/json")
			.timeout(Duration.ofSeconds(5))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	static URI docUri(String id, String query) {
		return URI.create(URL + "/" + database + "/" + id + query);
	}

	/** A connector whose {@code update} signals and then waits: the holder pauses after its authorization. */
	static CouchDbConnector pauseBeforeUpdate(CouchDbConnector target, CountDownLatch authorized,
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
