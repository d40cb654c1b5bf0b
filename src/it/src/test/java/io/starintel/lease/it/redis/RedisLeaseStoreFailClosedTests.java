package io.starintel.lease.it.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.AcquireRequest;
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
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.BeforeAll;
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

	private static String leaseKey(LockIdentity identity) {
		return RedisKeys.of(identity).lease(identity.keyDigest());
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
		// storage encoding v2: the record is one string (StoredRecord), the value of the lease key; the token is field 2
		String record = redis.opsForValue().get(leaseKey(identity));
		String stored = record.split(String.valueOf(StoredRecord.SEP))[2];
		String counter = (String) redis.opsForHash().get(RedisKeys.of(identity).fence(identity.keyDigest()), "counter");
		assertThat(stored).isEqualTo(Long.toString(lease.fencingToken())).doesNotContain("e").doesNotContain(".");
		assertThat(counter).isEqualTo(stored);
		assertThat(redis.type(leaseKey(identity))).isEqualTo(DataType.STRING);
		assertThat(StoredRecord.decode(record, identity)).isEqualTo(lease);
	}

	@Test
	void unknownFieldFailsClosedWithQuarantineAndAlertAndNoAcquisition() {
		LockIdentity identity = identity("t1");
		acquired(identity);
		asHashWith(identity, "surprise", "x");
		assertCorrupt(this.store.acquire(acquireRequest(identity, "bob", 60_000)), identity);
		assertCorrupt(this.store.inspect(InspectRequest.byIdentity(identity, "corr_1", Instant.now().plusSeconds(5))),
				identity);
		assertThat(redis.hasKey(leaseKey(identity))).isTrue();
		assertThat(redis.getExpire(leaseKey(identity))).isEqualTo(-1L);
	}

	@Test
	void wrongRecordVersionFailsClosed() {
		LockIdentity identity = identity("t1");
		LeaseRecord lease = acquired(identity);
		asHashWith(identity, "record_version", "2");
		assertCorrupt(this.store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))), identity);
	}

	@Test
	void storedTupleDifferentFromRequestedTupleFailsClosed() {
		LockIdentity a = identity("t1");
		LockIdentity b = identity("t2");
		acquired(a);
		redis.opsForValue().set(leaseKey(b), redis.opsForValue().get(leaseKey(a)));
		assertCorrupt(this.store.acquire(acquireRequest(b, "bob", 60_000)), b);
	}

	@Test
	void valueOfAnotherTypeFailsClosed() {
		LockIdentity identity = identity("t1");
		redis.opsForValue().set(leaseKey(identity), "{not a lease");
		assertCorrupt(this.store.acquire(acquireRequest(identity, "bob", 60_000)), identity);
	}

	@Test
	void recordThatOnlyTheJavaSideCanRejectFailsClosed() {
		LockIdentity identity = identity("t1");
		acquired(identity);
		// the metadata is the record's last field: Lua keeps it opaque, only the Java decoder rejects it
		String record = redis.opsForValue().get(leaseKey(identity));
		redis.opsForValue().set(leaseKey(identity),
				record.substring(0, record.lastIndexOf(StoredRecord.SEP) + 1) + "[not an object");
		LeaseResult result = this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.CORRUPT_RECORD);
		assertThat(this.alerts).extracting(LeaseAlert::reason).contains(Reason.CORRUPT_RECORD);
	}

	@Test
	void corruptFencingCounterRefusesAcquisition() {
		LockIdentity identity = identity("t1");
		redis.opsForHash().put(RedisKeys.of(identity).fence(identity.keyDigest()), "counter", "1.8e15");
		LeaseResult result = this.store.acquire(acquireRequest(identity, "bob", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.CORRUPT_RECORD);
	}

	@Test
	void backendTimeBehindTheCounterRefusesAndAlerts() {
		LockIdentity identity = identity("t1");
		long aheadByAMinute = (System.currentTimeMillis() + 90_000) * 1024;
		redis.opsForHash().put(RedisKeys.of(identity).fence(identity.keyDigest()), "counter", Long.toString(aheadByAMinute));
		LeaseResult result = this.store.acquire(acquireRequest(identity, "bob", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.BACKEND_CLOCK_BEHIND);
		assertThat(this.alerts).extracting(LeaseAlert::reason).containsExactly(Reason.BACKEND_CLOCK_BEHIND);
		assertThat(redis.opsForHash().get(RedisKeys.of(identity).fence(identity.keyDigest()), "counter"))
			.isEqualTo(Long.toString(aheadByAMinute));
	}

	@Test
	void counterAtTheNumericLimitRefusesAndAlertsWithoutWrapping() {
		RedisLeaseStore tolerant = new RedisLeaseStore(factory,
				RedisServers.POLICY.withClockSkewBound(Duration.ofDays(365L * 400)), this.alerts::add);
		LockIdentity identity = identity("t1");
		String limit = Long.toString(LeaseRecord.MAX_FENCING_TOKEN - 1);
		redis.opsForHash().put(RedisKeys.of(identity).fence(identity.keyDigest()), "counter", limit);
		LeaseResult result = tolerant.acquire(acquireRequest(identity, "bob", 60_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isEqualTo(Reason.FENCING_COUNTER_EXHAUSTED);
		assertThat(this.alerts).extracting(LeaseAlert::reason).containsExactly(Reason.FENCING_COUNTER_EXHAUSTED);
		assertThat(redis.opsForHash().get(RedisKeys.of(identity).fence(identity.keyDigest()), "counter"))
			.isEqualTo(limit);
	}

	@Test
	void expiredActiveShapedRecordIsExpiredBeforeAnyDecision() {
		LockIdentity identity = identity("t1");
		LeaseResult first = this.store.acquire(acquireRequest(identity, "alice", 300));
		assertThat(first.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> this.store
			.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)))
			.code() == ResultCode.LEASE_NOT_FOUND);
		assertThat(redis.hasKey(leaseKey(identity))).isFalse();
		List<String> history = redis.opsForList().range(RedisKeys.of(identity).history(identity.keyDigest()), 0, -1);
		assertThat(history).hasSize(1);
		LeaseRecord ended = StoredRecord.decode(history.get(0), identity);
		assertThat(ended.state()).isEqualTo(LeaseState.EXPIRED);
		assertThat(ended.leaseId()).isEqualTo(first.lease().leaseId());
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
		// the sweeper meets the due entry (acquire no longer reclaims other identities' entries: store v2)
		SweepResult swept = this.store.sweepExpired(new SweepRequest(identity.scope(), 50, Instant.now().plusSeconds(5)));
		assertThat(swept.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(swept.expired()).isEmpty();
		LeaseResult inspected = this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)));
		assertThat(inspected.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(inspected.lease()).isEqualTo(successor);
		assertThat(redis.opsForList().size(keys.history(identity.keyDigest()))).isZero();
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

	/**
	 * Rewrites the stored record into the hash form of earlier releases (field r) with one more field: a hash that is
	 * neither a valid v2 hash nor a valid v1 hash. The physical TTL is kept, so that a later -1 shows the pin.
	 */
	private static void asHashWith(LockIdentity identity, String field, String value) {
		String key = leaseKey(identity);
		String record = redis.opsForValue().get(key);
		long ttlMs = redis.getExpire(key, TimeUnit.MILLISECONDS);
		redis.delete(key);
		redis.opsForHash().putAll(key, Map.of("r", record, field, value));
		redis.expire(key, Duration.ofMillis(ttlMs));
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
