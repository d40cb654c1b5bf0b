package io.starintel.lease.it.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.BeforeAll;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the Redis store does with data it cannot trust, and the exactness of what it stores: corrupt records fail
 * closed (no acquisition over them, quarantined copy, alert), tokens are stored digit for digit, expired
 * active-shaped records and stale index entries never act as leases.
 */
class RedisLeaseStoreFailClosedTests extends SharedRedisTests {

	private static StringRedisTemplate redis;

	private final List<LeaseAlert> alerts = new CopyOnWriteArrayList<>();

	private RedisLeaseStore store;

	private String program;

	@BeforeAll
	static void template() {
		redis = new StringRedisTemplate(factory);
	}

	@BeforeEach
	void newProgram() {
		this.store = new RedisLeaseStore(factory, RedisServers.POLICY, this.alerts::add);
		this.program = "p-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private LockIdentity identity(String target) {
		return LockIdentity.of("tenant-fc", this.program, "starintel-target", target, "usernamegen", "default", null);
	}

	private static AcquireRequest acquireRequest(LockIdentity identity, String owner, long ttlMs) {
		return new AcquireRequest(identity, Identifiers.generate("request"), Instant.now().plusSeconds(10),
				new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), ttlMs, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty());
	}

	/** The identity hash (storage v3): m and f are the active record's parts, c the counter, t0.. the history. */
	private static String identityKey(LockIdentity identity) {
		return RedisKeys.of(identity).identity(identity.keyDigest());
	}

	private static @Nullable String field(LockIdentity identity, String field) {
		return (String) redis.opsForHash().get(identityKey(identity), field);
	}

	private static void setField(LockIdentity identity, String field, String value) {
		redis.opsForHash().put(identityKey(identity), field, value);
	}

	private LeaseRecord acquired(LockIdentity identity) {
		LeaseResult result = this.store.acquire(acquireRequest(identity, "alice", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	@Test
	void storedTokenMatchesReturnedTokenDigitForDigit() {
		LockIdentity identity = identity("t1");
		LeaseRecord lease = acquired(identity);
		assertThat(lease.fencingToken()).isGreaterThan(1_000_000_000_000_000L);
		// storage v3: the identity hash; m = state token times, f = the fixed part (StoredRecord's layout, split)
		String m = field(identity, "m");
		String stored = m.split(String.valueOf(StoredRecord.SEP))[1];
		assertThat(stored).isEqualTo(Long.toString(lease.fencingToken())).doesNotContain("e").doesNotContain(".");
		assertThat(field(identity, "c")).isEqualTo(stored);
		assertThat(redis.type(identityKey(identity))).isEqualTo(DataType.HASH);
		String record = "2" + StoredRecord.SEP + m + StoredRecord.SEP + field(identity, "f");
		assertThat(StoredRecord.decode(record, identity)).isEqualTo(lease);
	}

	@Test
	void unreadableMutablePartFailsClosedWithQuarantineAndAlertAndNoAcquisition() {
		LockIdentity identity = identity("t1");
		acquired(identity);
		setField(identity, "m", "active\u001fnot-a-token\u001f1\u001f1\u001f1\u001f1\u001f1");
		assertCorrupt(this.store.acquire(acquireRequest(identity, "bob", 60_000)), identity);
		assertCorrupt(this.store.inspect(InspectRequest.byIdentity(identity, "corr_1", Instant.now().plusSeconds(5))),
				identity);
		assertThat(redis.hasKey(identityKey(identity))).as("the identity (and its counter) stays").isTrue();
	}

	@Test
	void unknownStateFailsClosed() {
		LockIdentity identity = identity("t1");
		LeaseRecord lease = acquired(identity);
		String m = field(identity, "m");
		setField(identity, "m", "mystery" + m.substring(m.indexOf(StoredRecord.SEP)));
		assertCorrupt(this.store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))), identity);
	}

	@Test
	void storedTupleDifferentFromRequestedTupleFailsClosed() {
		LockIdentity a = identity("t1");
		LockIdentity b = identity("t2");
		acquired(a);
		redis.opsForHash().putAll(identityKey(b), Map.of("m", field(a, "m"), "f", field(a, "f")));
		assertCorrupt(this.store.acquire(acquireRequest(b, "bob", 60_000)), b);
	}

	@Test
	void valueOfAnotherTypeFailsClosed() {
		LockIdentity identity = identity("t1");
		redis.opsForValue().set(identityKey(identity), "{not a lease");
		assertCorrupt(this.store.acquire(acquireRequest(identity, "bob", 60_000)), identity);
	}

	@Test
	void unreadableStorageV2RecordFailsClosed() {
		LockIdentity identity = identity("t1");
		redis.opsForValue().set(RedisKeys.of(identity).lease(identity.keyDigest()), "{not a lease");
		assertCorrupt(this.store.acquire(acquireRequest(identity, "bob", 60_000)), identity);
	}

	@Test
	void recordThatOnlyTheJavaSideCanRejectFailsClosed() {
		LockIdentity identity = identity("t1");
		acquired(identity);
		// the metadata is the record's last field: Lua keeps it opaque, only the Java decoder rejects it
		String f = field(identity, "f");
		setField(identity, "f", f.substring(0, f.lastIndexOf(StoredRecord.SEP) + 1) + "[not an object");
		LeaseResult result = this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.CORRUPT_RECORD);
		assertThat(this.alerts).extracting(LeaseAlert::reason).contains(Reason.CORRUPT_RECORD);
	}

	@Test
	void corruptFencingCounterRefusesAcquisition() {
		LockIdentity identity = identity("t1");
		setField(identity, "c", "1.8e15");
		LeaseResult result = this.store.acquire(acquireRequest(identity, "bob", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.CORRUPT_RECORD);
	}

	@Test
	void nextHistorySlotThatIsNotDecimalDigitsFailsEveryCallClosed() {
		everyCallFailsClosedOverACorruptNumber("n", "notanumber");
	}

	@Test
	void fencingCounterThatIsNotDecimalDigitsFailsEveryCallClosed() {
		everyCallFailsClosedOverACorruptNumber("c", "12abc");
	}

	@Test
	void highWaterMarkThatIsNotDecimalDigitsFailsEveryCallClosed() {
		everyCallFailsClosedOverACorruptNumber("h", "zz9");
	}

	@Test
	void emptyNumberFailsEveryCallClosed() {
		everyCallFailsClosedOverACorruptNumber("n", "");
	}

	/**
	 * A number of the identity hash (c the counter, h the mark, n the next history slot) that is not decimal digits,
	 * on an active lease: every call answers corrupt_record (quarantined, alerted), nothing changes, and no
	 * idempotency result claims a renewal or release that did not happen (before, a release wrote its claim and then
	 * failed on n: the claim said released while the lease stayed active).
	 */
	private void everyCallFailsClosedOverACorruptNumber(String number, String value) {
		LockIdentity identity = identity("t1");
		LeaseRecord lease = acquired(identity);
		String m = field(identity, "m");
		setField(identity, number, value);
		RedisKeys keys = RedisKeys.of(identity);

		assertCorrupt(this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5))),
				identity);
		RenewRequest renew = new RenewRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5));
		assertCorrupt(this.store.renew(renew), identity);
		ReleaseRequest release = new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5));
		assertCorrupt(this.store.release(release), identity);
		assertCorrupt(this.store.release(release), identity); // a retry with the same request id
		assertCorrupt(this.store.authorizeCommit(new CommitRequest(lease.handle(), "corr_1",
				Instant.now().plusSeconds(5))), identity);
		assertCorrupt(this.store.acquire(acquireRequest(identity, "bob", 60_000)), identity);

		LeaseResult resolvedRelease = this.store.resolve(ResolveRequest.of(release, Instant.now().plusSeconds(5)));
		assertThat(resolvedRelease.code()).isNotEqualTo(ResultCode.LEASE_RELEASED);
		assertCorrupt(resolvedRelease, identity);
		assertThat(this.store.resolve(ResolveRequest.of(renew, Instant.now().plusSeconds(5))).code())
			.isNotEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(redis.hasKey(keys.idempotency(Operation.RELEASE, identity.lockKey(), "alice", release.requestId())))
			.as("no idempotency result of the refused release").isFalse();
		assertThat(redis.hasKey(keys.idempotency(Operation.RENEW, identity.lockKey(), "alice", renew.requestId())))
			.as("no idempotency result of the refused renewal").isFalse();
		assertThat(field(identity, "m")).as("the lease is left as it was, for an operator").isEqualTo(m);
		assertThat(field(identity, number)).isEqualTo(value);
		assertThat(field(identity, "t0")).as("no terminal entry").isNull();
		assertThat(this.alerts).extracting(LeaseAlert::reason).containsOnly(Reason.CORRUPT_RECORD);
	}

	@Test
	void counterOfDigitsTooLargeForTheClockIsClockBehindNotCorrupt() {
		LockIdentity identity = identity("t1");
		LeaseRecord lease = acquired(identity);
		setField(identity, "c", "99999999999999999999999");
		assertThat(this.store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseResult result = this.store.acquire(acquireRequest(identity, "bob", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.BACKEND_CLOCK_BEHIND);
		assertThat(redis.hasKey(RedisKeys.of(identity).quarantine(identity.keyDigest()))).isFalse();
	}

	@Test
	void releaseWhoseAttachedKeysCannotBeDeletedStillEndsTheLeaseItsResultClaims() {
		LockIdentity identity = identity("t1");
		LeaseRecord lease = acquired(identity);
		AttachmentResult put = this.store.putAttached(new AttachPutRequest(lease.handle(), "step", "1",
				Identifiers.generate("request"), Instant.now().plusSeconds(5)));
		assertThat(put.code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		// the lease's attached set (a hash) replaced by a value of another type: its deletion fails inside the release
		String att = RedisKeys.of(identity).base() + "att:" + lease.leaseId() + ":" + lease.fencingToken();
		assertThat(redis.type(att)).isEqualTo(DataType.HASH);
		redis.delete(att);
		redis.opsForValue().set(att, "not a set");
		ReleaseRequest release = new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5));
		LeaseResult released = this.store.release(release);
		assertThat(released.code()).isIn(ResultCode.LEASE_RELEASED, ResultCode.LEASE_OUTCOME_UNKNOWN);
		// whatever the reply, the release's result and the lease's state agree: it ended
		LeaseResult resolved = this.store.resolve(ResolveRequest.of(release, Instant.now().plusSeconds(5)));
		assertThat(resolved.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5))).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(field(identity, "m")).isEmpty();
		assertThat(acquired(identity).fencingToken()).isGreaterThan(lease.fencingToken());
	}

	@Test
	void backendTimeBehindTheCounterRefusesAndAlerts() {
		LockIdentity identity = identity("t1");
		long aheadByAMinute = (System.currentTimeMillis() + 90_000) * 1024;
		setField(identity, "c", Long.toString(aheadByAMinute));
		LeaseResult result = this.store.acquire(acquireRequest(identity, "bob", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.BACKEND_CLOCK_BEHIND);
		assertThat(this.alerts).extracting(LeaseAlert::reason).containsExactly(Reason.BACKEND_CLOCK_BEHIND);
		assertThat(field(identity, "c")).isEqualTo(Long.toString(aheadByAMinute));
	}

	@Test
	void counterAtTheNumericLimitRefusesAndAlertsWithoutWrapping() {
		RedisLeaseStore tolerant = new RedisLeaseStore(factory,
				RedisServers.POLICY.withClockSkewBound(Duration.ofDays(365L * 400)), this.alerts::add);
		LockIdentity identity = identity("t1");
		String limit = Long.toString(LeaseRecord.MAX_FENCING_TOKEN - 1);
		setField(identity, "c", limit);
		LeaseResult result = tolerant.acquire(acquireRequest(identity, "bob", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.FENCING_COUNTER_EXHAUSTED);
		assertThat(this.alerts).extracting(LeaseAlert::reason).containsExactly(Reason.FENCING_COUNTER_EXHAUSTED);
		assertThat(field(identity, "c")).isEqualTo(limit);
	}

	@Test
	void storageV2CounterIsCarriedOverOnFirstTouch() {
		LockIdentity identity = identity("t1");
		long ahead = System.currentTimeMillis() * 1024 + 5_000_000L;
		redis.opsForHash().put(RedisKeys.of(identity).fence(identity.keyDigest()), "counter", Long.toString(ahead));
		LeaseRecord lease = acquired(identity);
		assertThat(lease.fencingToken()).as("above the v2 counter").isGreaterThan(ahead);
		assertThat(field(identity, "c")).isEqualTo(Long.toString(lease.fencingToken()));
	}

	@Test
	void expiredActiveShapedRecordIsExpiredBeforeAnyDecision() {
		LockIdentity identity = identity("t1");
		LeaseResult first = this.store.acquire(acquireRequest(identity, "alice", 300));
		assertThat(first.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> this.store
			.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)))
			.code() == ResultCode.LEASE_NOT_FOUND);
		assertThat(field(identity, "m")).as("no active record").isEmpty();
		// the terminal entry of the history ring: lease id, token, state, ended at
		String[] entry = field(identity, "t0").split(String.valueOf(StoredRecord.SEP));
		assertThat(entry[0]).isEqualTo(first.lease().leaseId());
		assertThat(entry[1]).isEqualTo(Long.toString(first.lease().fencingToken()));
		assertThat(entry[2]).isEqualTo(LeaseState.EXPIRED.wireName());
		LeaseRecord next = acquired(identity);
		assertThat(next.fencingToken()).isGreaterThan(first.lease().fencingToken());
	}

	@Test
	void delayedExpiryCleanupThatMeetsASuccessorLeavesItActive() {
		LockIdentity identity = identity("t1");
		LeaseRecord successor = acquired(identity);
		RedisKeys keys = RedisKeys.of(identity);
		// a late expiry-queue entry (as if left by an earlier, expired lease of the same identity)
		redis.opsForZSet().add(keys.expiryQueue(), identity.keyDigest(), 0);
		SweepResult swept = this.store.sweepExpired(new SweepRequest(identity.scope(), 50, Instant.now().plusSeconds(5)));
		assertThat(swept.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(swept.expired()).isEmpty();
		LeaseResult inspected = this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)));
		assertThat(inspected.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(inspected.lease()).isEqualTo(successor);
		assertThat(field(identity, "t0")).as("no terminal entry").isNull();
		assertThat(redis.opsForZSet().score(keys.expiryQueue(), identity.keyDigest()))
			.as("requeued at the successor's own expiry").isEqualTo((double) successor.expiresAt().toEpochMilli());
	}

	@Test
	void staleIndexEntriesNeverSurfaceAsLeases() {
		LockIdentity live = identity("t1");
		acquired(live);
		RedisKeys keys = RedisKeys.of(live);
		redis.opsForZSet().add(keys.programIndex(), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 0);
		LeasePage page = this.store.list(new ListRequest(new ListFilter.ByProgram(live.scope()), null, 10, "c",
				Instant.now().plusSeconds(5)));
		assertThat(page.code()).isEqualTo(ResultCode.LEASE_LISTED);
		assertThat(page.leases()).extracting(LeaseRecord::lockKey).containsExactly(live.lockKey());
		assertThat(redis.opsForZSet().range(keys.programIndex(), 0, -1)).containsExactly(live.keyDigest());
	}

	@Test
	void malformedCursorIsInvalidRequest() {
		LeasePage page = this.store.list(new ListRequest(new ListFilter.ByProgram(identity("t1").scope()),
				"bm90LWEtY3Vyc29y", 10, "c", Instant.now().plusSeconds(5)));
		assertThat(page.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
	}

	private void assertCorrupt(LeaseResult result, LockIdentity identity) {
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.CORRUPT_RECORD);
		assertThat(result.lease()).isNull();
		assertThat(redis.hasKey(RedisKeys.of(identity).quarantine(identity.keyDigest()))).isTrue();
		assertThat(this.alerts).extracting(LeaseAlert::reason).contains(Reason.CORRUPT_RECORD);
		assertThat(this.alerts).extracting(LeaseAlert::reference).contains(identity.keyDigest());
	}

}
