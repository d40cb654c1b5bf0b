package io.starintel.lease.it.fence;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.ektorp.CouchDbConnector;
import org.ektorp.CouchDbInstance;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.DocumentMarkStore;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.fence.couchdb.FencedDocumentResult;
import io.starintel.lease.fence.couchdb.FencedDocuments;
import io.starintel.lease.fence.couchdb.FencedCouchDbReader;
import io.starintel.lease.fence.couchdb.FencedReadStatus;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.test.TestServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The durable mark raised after CouchDB accepted a fenced write, with Redis behind a proxy that stops forwarding
 * (Apache CouchDB and the real Redis store): the raise waits no longer than its deadline (a bulk write's raises share
 * one), the write is reported {@code fenced_write_accepted_mark_pending} (it stands; never plain
 * {@code fenced_write_accepted}), a mark read fails within its deadline too, and {@link FencedDocuments#retryMark}
 * raises the mark once Redis answers again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CouchDbMarkPendingTests {

	static final Duration MARK_TIMEOUT = Duration.ofMillis(500);

	FenceFixture fixture;

	org.ektorp.http.HttpClient http;

	CouchDbInstance instance;

	String database;

	CouchDbConnector raw;

	@BeforeAll
	void setUp() throws Exception {
		this.fixture = new FenceFixture();
		TestServers.CouchDb server = TestServers.apacheCouchDb();
		this.http = new StdHttpClient.Builder().url(server.url())
			.caching(false)
			.username(server.user())
			.password(server.password())
			.build();
		this.instance = new StdCouchDbInstance(this.http);
		this.database = "fence-mark-" + UUID.randomUUID().toString().substring(0, 8);
		this.instance.createDatabase(this.database);
		this.raw = new StdCouchDbConnector(this.database, this.instance);
	}

	@AfterAll
	void tearDown() {
		this.instance.deleteDatabase(this.database);
		this.http.shutdown();
		this.fixture.close();
	}

	@Test
	void aMarkRaiseThatRedisDoesNotAnswerIsBoundedAndReportedPendingThenRetried() throws Exception {
		URI uri = RedisServers.uri();
		LeaseContext a = this.fixture.acquire(this.fixture.identity("couch-mark-pending"), "alice", 30_000);
		DocumentMarkStore direct = new DocumentMarkStore(this.fixture.redis);
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				DocumentMarkStore marks = new DocumentMarkStore(FenceCalls.create(proxied, "starintel-lease"),
						MARK_TIMEOUT);
				FencedCouchDbConnector fenced = new FencedCouchDbConnector(this.raw, this.fixture.guard, marks);
				fenced.installDesignDocument();
				FencedDocuments documents = fenced.documents();
				try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
					// the mark store's connection, opened while Redis still answers
					assertThat(documents.tryCreate(doc("warm-up")).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
					proxy.pause(true);
					Map<String, Object> doc = doc("pending-1");
					long started = System.nanoTime();
					FencedWriteResult pending = documents.tryCreate(doc);
					Duration took = Duration.ofNanos(System.nanoTime() - started);
					assertThat(pending.outcome()).isEqualTo(FenceOutcome.ACCEPTED_MARK_PENDING);
					assertThat(pending.isAccepted()).as("the write stands").isTrue();
					assertThat(pending.isMarkPending()).isTrue();
					assertThat(pending.stamp()).isNotNull();
					assertThat(took).as("bounded by the 500 ms mark deadline").isLessThan(Duration.ofSeconds(3));
					assertThat(this.raw.get(Map.class, "pending-1").get("value")).isEqualTo("pending-1");
					// a bulk write's raises share one deadline: ten documents cost one timeout, not ten
					List<Map<String, Object>> bulk = new ArrayList<>();
					for (int i = 0; i < 10; i++) {
						bulk.add(doc("bulk-" + i));
					}
					started = System.nanoTime();
					List<FencedDocumentResult> results = documents.tryExecuteBulk(bulk);
					took = Duration.ofNanos(System.nanoTime() - started);
					assertThat(results).hasSize(10)
						.allSatisfy((r) -> assertThat(r.result().outcome()).isEqualTo(FenceOutcome.ACCEPTED_MARK_PENDING));
					assertThat(took).as("one shared 500 ms deadline").isLessThan(Duration.ofMillis(2_500));
					// a mark read is bounded likewise: no answer in time is a failure, not a wait for the client timeout
					started = System.nanoTime();
					assertThatIllegalStateException()
						.isThrownBy(() -> marks.read(a.identity().scope(), this.database, "pending-1", null));
					assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
					// still not answering: the retry is bounded and still pending
					assertThat(documents.retryMark("pending-1", pending).outcome())
						.isEqualTo(FenceOutcome.ACCEPTED_MARK_PENDING);
					proxy.pause(false);
					FencedWriteResult retried = documents.retryMark("pending-1", pending);
					assertThat(retried.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
					assertThat(direct.read(a.identity().scope(), this.database, "pending-1", null).token())
						.isEqualTo(pending.stamp().fencingToken());
				}
			}
			finally {
				proxied.destroy();
			}
		}
	}

	@Test
	void retryMarkRaisesOnlyAWriteOfTheBoundHolderNeverAForgedToken() {
		LeaseContext a = this.fixture.acquire(this.fixture.identity("couch-mark-forged"), "alice", 30_000);
		DocumentMarkStore marks = new DocumentMarkStore(this.fixture.redis);
		FencedCouchDbConnector fenced = new FencedCouchDbConnector(this.raw, this.fixture.guard, marks);
		fenced.installDesignDocument();
		FencedDocuments documents = fenced.documents();
		FencedWriteResult written;
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			written = documents.tryCreate(doc("forged-1"));
		}
		assertThat(written.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		FenceStamp own = written.stamp();
		assertThat(marks.read(a.identity().scope(), this.database, "forged-1", null).token())
			.isEqualTo(a.fencingToken());
		assertThat(written.documentId()).isEqualTo("forged-1");
		// a result built by hand: "pending", with a token far above anything this holder wrote with
		FencedWriteResult forged = new FencedWriteResult(FenceOutcome.ACCEPTED_MARK_PENDING, Reason.BACKEND_UNREACHABLE,
				"corr_forged", null, new FenceStamp(own.lockKeyDigest(), own.fencingToken() + 1_000, own.leaseId(),
						own.executionId(), own.traceId(), own.acceptedAt()), "forged-1");
		try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
			FencedWriteResult refused = documents.retryMark("forged-1", forged);
			assertThat(refused.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
			assertThat(refused.detail()).contains("bound lease context");
		}
		// without a context no mark is raised either
		assertThat(documents.retryMark("forged-1", forged).outcome()).isEqualTo(FenceOutcome.NO_LEASE_CONTEXT);
		assertThat(marks.read(a.identity().scope(), this.database, "forged-1", null).token())
			.as("the mark is still the holder's own token")
			.isEqualTo(a.fencingToken());
	}

	/**
	 * retryMark is a fenced commit (the probe's contract violation): a holder whose lease was taken over gets
	 * {@code lease_lost} for its own pending write and raises nothing, a result is raised only for its own document,
	 * and only onto a document that carries its lock identity; so no stale (or current) holder of one identity can
	 * plant a mark on another identity's document id, and that identity's first writer is marked normally.
	 */
	@Test
	void retryMarkIsAuthorizedAtBackendTimeAndRaisesOnlyItsOwnDocumentOfItsOwnIdentity() throws Exception {
		URI uri = RedisServers.uri();
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		String own = "stale-own-" + suffix;
		String victim = "victim-" + suffix;
		LeaseContext a = this.fixture.acquire(this.fixture.identity("couch-mark-stale-" + suffix), "alice", 3_000);
		DocumentMarkStore direct = new DocumentMarkStore(this.fixture.redis);
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				DocumentMarkStore marks = new DocumentMarkStore(FenceCalls.create(proxied, "starintel-lease"),
						MARK_TIMEOUT);
				FencedCouchDbConnector fenced = new FencedCouchDbConnector(this.raw, this.fixture.guard, marks);
				fenced.installDesignDocument();
				FencedDocuments documents = fenced.documents();
				FencedWriteResult pending;
				try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
					assertThat(documents.tryCreate(doc("warm-" + suffix)).outcome()).isEqualTo(FenceOutcome.ACCEPTED);
					proxy.pause(true);
					pending = documents.tryCreate(doc(own));
					proxy.pause(false);
				}
				assertThat(pending.outcome()).isEqualTo(FenceOutcome.ACCEPTED_MARK_PENDING);
				assertThat(pending.documentId()).isEqualTo(own);
				// A's lease ends and B holds the target now; A's context is still bound
				this.fixture.awaitExpired(a);
				LeaseContext b = this.fixture.acquire(a.identity(), "bob", 30_000);
				try (LeaseContext.Scope scope = LeaseContext.bind(a)) {
					FencedWriteResult own1 = documents.retryMark(own, pending);
					assertThat(own1.outcome()).as("the same answer as a write").isEqualTo(FenceOutcome.LEASE_LOST);
					assertThat(documents.tryCreate(doc("late-" + suffix)).outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
					// a result names its document: another id is refused, nothing authorized or raised
					FencedWriteResult other = documents.retryMark(victim, pending);
					assertThat(other.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
					assertThat(other.detail()).contains("another document");
					// re-labelled by hand: the victim document does not carry A's identity (it does not exist)
					assertThat(documents.retryMark(victim, pending.withDocumentId(victim)).outcome())
						.isEqualTo(FenceOutcome.INVALID_REQUEST);
				}
				assertThat(direct.read(a.identity().scope(), this.database, own, null).digest())
					.as("no mark raised by the stale holder")
					.isNull();
				assertThat(direct.read(a.identity().scope(), this.database, victim, null).digest())
					.as("no mark planted on another document")
					.isNull();
				// nor does B, the identity's current holder, raise a result of A's lease (B's own writes mark it)
				try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
					assertThat(documents.retryMark(own, pending).outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
				}
				// E, the current holder of another identity, creates the victim document: marked normally, read current
				LeaseContext e = this.fixture.acquire(this.fixture.identity("couch-mark-victim-" + suffix), "erin",
						30_000);
				try (LeaseContext.Scope scope = LeaseContext.bind(e)) {
					FencedWriteResult created = documents.tryCreate(doc(victim));
					assertThat(created.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
					// nor can E, current, plant its identity's mark on A's document with a result built by hand
					FencedWriteResult planted = new FencedWriteResult(FenceOutcome.ACCEPTED_MARK_PENDING,
							Reason.BACKEND_UNREACHABLE, "corr_planted", null, created.stamp(), own);
					FencedWriteResult refused = documents.retryMark(own, planted);
					assertThat(refused.outcome()).isEqualTo(FenceOutcome.INVALID_REQUEST);
					assertThat(refused.detail()).contains("lock identity");
				}
				assertThat(new FencedCouchDbReader(this.raw, direct).read(e.identity().scope(), victim).status())
					.isEqualTo(FencedReadStatus.CURRENT);
				assertThat(direct.read(a.identity().scope(), this.database, own, null).digest()).isNull();
			}
			finally {
				proxied.destroy();
			}
		}
	}

	/**
	 * A counter that is not a number (a corrupt identity hash) gives a mark read no usable answer: the documented
	 * {@code IllegalStateException}, which the fenced reader reports as {@code BACKEND_UNAVAILABLE}; never a
	 * {@code NumberFormatException} to the caller, never a guess.
	 */
	@Test
	void aMarkReadOfACorruptCounterHasNoAnswer() {
		LeaseContext a = this.fixture.acquire(this.fixture.identity("couch-mark-corrupt"), "alice", 30_000);
		DocumentMarkStore marks = new DocumentMarkStore(this.fixture.redis);
		this.fixture.redis.opsForHash().put(FenceCalls.identityKey(a.identity()), "c", "12abc");
		assertThatIllegalStateException()
			.isThrownBy(() -> marks.read(a.identity().scope(), this.database, "any-doc", a.identity().keyDigest()))
			.withMessage("mark read: not a number");
	}

	static Map<String, Object> doc(String id) {
		Map<String, Object> doc = new LinkedHashMap<>();
		doc.put("_id", id);
		doc.put("value", id);
		return doc;
	}

}
