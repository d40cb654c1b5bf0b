package io.starintel.lease.it.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedMessageRejectedException;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.fence.checkpoint.Checkpoint;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rolling upgrade from storage encoding v1 (26-field record hashes, JSON history, idempotency hashes) to v2: data
 * written by the v1 scripts themselves (fixture copies under {@code src/it/src/test/resources/.../redis/v1}) is
 * read by the v2 store, a healthy v1 lease is upgraded on first touch (never quarantined), its holder keeps
 * renewing and releasing it, the fencing counter carries over (tokens never go backwards), and a replay of a v1
 * idempotency record answers the original result with the lease's actual state.
 */
class RedisStorageUpgradeTests extends SharedRedisTests {

	private static final long PHYSICAL_GRACE_MS = 300_000;

	private static StringRedisTemplate redis;

	@SuppressWarnings("rawtypes")
	private static DefaultRedisScript<List> v1Acquire;

	@SuppressWarnings("rawtypes")
	private static DefaultRedisScript<List> v1Release;

	private final List<LeaseAlert> alerts = new CopyOnWriteArrayList<>();

	private RedisLeaseStore store;

	private String program;

	@BeforeAll
	static void fixture() {
		redis = new StringRedisTemplate(factory);
		v1Acquire = new DefaultRedisScript<>(v1("prelude.lua") + "\n" + v1("acquire.lua"), List.class);
		v1Release = new DefaultRedisScript<>(v1("prelude.lua") + "\n" + v1("release.lua"), List.class);
	}

	@BeforeEach
	void newProgram() {
		this.store = new RedisLeaseStore(factory, RedisServers.POLICY, this.alerts::add);
		this.program = "p-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private LockIdentity identity(String target) {
		return LockIdentity.of("tenant-up", this.program, "starintel-target", target, "usernamegen", "default", null);
	}

	private static AcquireRequest acquireRequest(LockIdentity identity, String owner) {
		return new AcquireRequest(identity, Identifiers.generate("request"), Instant.now().plusSeconds(10),
				new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), 60_000, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.parse("{\"run\":7}"));
	}

	@Test
	void healthyV1LeaseIsReadUpgradedRenewedAndReleasedByItsHolder() {
		LockIdentity identity = identity("t1");
		AcquireRequest request = acquireRequest(identity, "alice");
		V1Lease v1 = v1Acquire(request);
		LeaseResult inspected = this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)));
		assertThat(inspected.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(inspected.lease().leaseId()).isEqualTo(v1.leaseId());
		assertThat(inspected.lease().fencingToken()).isEqualTo(v1.token());
		assertThat(inspected.lease().metadata()).isEqualTo(request.metadata());
		assertThat(this.alerts).isEmpty();
		RedisKeys keys = RedisKeys.of(identity);
		assertThat(redis.hasKey(keys.quarantine(identity.keyDigest()))).isFalse();
		assertThat(redis.type(keys.lease(identity.keyDigest()))).isEqualTo(DataType.STRING);
		assertThat(redis.getExpire(keys.lease(identity.keyDigest()))).isPositive();

		assertThat(this.store.acquire(acquireRequest(identity, "bob")).code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		LeaseRecord lease = inspected.lease();
		LeaseResult renewed = this.store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5)));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().fencingToken()).isEqualTo(v1.token());
		LeaseResult released = this.store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5)));
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(v1.token());
	}

	@Test
	void v1IdempotencyRecordReplaysWithTheActualTerminalStateAndTheCounterCarriesOver() {
		LockIdentity identity = identity("t2");
		AcquireRequest request = acquireRequest(identity, "alice");
		V1Lease v1 = v1Acquire(request);
		v1Release(identity, v1, "alice");
		LeaseResult replay = this.store.acquire(request);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.lease().leaseId()).isEqualTo(v1.leaseId());
		assertThat(replay.lease().fencingToken()).isEqualTo(v1.token());
		assertThat(replay.currentState()).isEqualTo(LeaseState.RELEASED);
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(v1.token());
		assertThat(this.alerts).isEmpty();
	}

	@Test
	void v1CounterAheadOfBackendTimeStillOrdersTokens() {
		LockIdentity identity = identity("t3");
		long ahead = (System.currentTimeMillis() + 2_000) * 1024; // a v1 counter inside the skew bound
		redis.opsForHash().put(RedisKeys.of(identity).fence(identity.keyDigest()), "counter", Long.toString(ahead));
		LeaseResult acquired = this.store.acquire(acquireRequest(identity, "alice"));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(acquired.lease().fencingToken()).isGreaterThan(ahead);
	}

	/**
	 * Mixed versions (the overlap the upgrade procedure avoids): a v1 process meeting a v2 record fails closed. It
	 * sees no valid v1 hash, so it refuses with corrupt_record (never a second holder, never a token of its own),
	 * copies the record to the quarantine key and pins it (PERSIST); the v2 holder still renews (which restores the
	 * physical TTL) and releases, and tokens keep increasing.
	 */
	@Test
	void v1ProcessMeetingAV2LeaseFailsClosedAndTheV2HolderKeepsIt() {
		LockIdentity identity = identity("t4");
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		LeaseResult acquired = this.store.acquire(acquireRequest(identity, "alice"));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		List<Object> v1 = v1AcquireReply(acquireRequest(identity, "bob"), Identifiers.generate("lease"));
		assertThat(v1.get(0)).isEqualTo("lease_backend_unavailable");
		assertThat(v1.get(1)).isEqualTo("corrupt_record");
		assertThat(redis.hasKey(keys.quarantine(digest))).as("v1 quarantined its copy").isTrue();
		assertThat(redis.getExpire(keys.lease(digest))).as("v1 pinned the record").isEqualTo(-1L);
		assertThat(redis.type(keys.lease(digest))).isEqualTo(DataType.STRING);

		LeaseRecord lease = acquired.lease();
		LeaseResult renewed = this.store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5)));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(redis.getExpire(keys.lease(digest))).as("renewal restores the physical TTL").isPositive();
		assertThat(this.store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(lease.fencingToken());
		assertThat(this.alerts).as("v2 itself saw nothing corrupt").isEmpty();
	}

	/**
	 * The v2 hash form written by the previous v2 release (a hash whose single field r holds the record string) is
	 * read as the same lease, converted to the string form on first touch with its physical TTL kept, never
	 * quarantined; the holder renews and releases it, and the attached keys it may own still end with it (a record
	 * read from the hash form counts as having attached keys).
	 */
	@Test
	void v2HashRecordOfThePreviousReleaseIsConvertedOnFirstTouchAndEndsWithItsAttachedKeys() {
		LockIdentity identity = identity("t5");
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		LeaseResult acquired = this.store.acquire(acquireRequest(identity, "alice"));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		LeaseRecord lease = acquired.lease();
		assertThat(this.store.putAttached(new AttachPutRequest(lease.handle(), "report", "v", Identifiers.generate(
				"request"), Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		asPreviousReleaseHash(keys.lease(digest), StoredRecord.encode(lease));
		long ttlBefore = redis.getExpire(keys.lease(digest), TimeUnit.MILLISECONDS);

		LeaseResult inspected = this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5)));
		assertThat(inspected.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(inspected.lease()).isEqualTo(lease);
		assertThat(redis.type(keys.lease(digest))).isEqualTo(DataType.STRING);
		assertThat(redis.getExpire(keys.lease(digest), TimeUnit.MILLISECONDS)).isPositive().isLessThanOrEqualTo(ttlBefore);
		assertThat(redis.hasKey(keys.quarantine(digest))).isFalse();
		assertThat(this.store.acquire(acquireRequest(identity, "bob")).code()).isEqualTo(ResultCode.LEASE_CONFLICT);

		LeaseResult renewed = this.store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5)));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().fencingToken()).isEqualTo(lease.fencingToken());
		String attachedKey = keys.base() + "att:" + lease.leaseId() + ":" + lease.fencingToken();
		assertThat(redis.hasKey(attachedKey)).isTrue();
		assertThat(this.store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(redis.hasKey(attachedKey)).as("the attached keys ended with the lease").isFalse();
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(lease.fencingToken());
		assertThat(this.alerts).isEmpty();
	}

	/** A v2 hash of the previous release met first by the acquire of another owner: a conflict, never a takeover. */
	@Test
	void v2HashRecordOfThePreviousReleaseStillBlocksOtherOwners() {
		LockIdentity identity = identity("t6");
		RedisKeys keys = RedisKeys.of(identity);
		LeaseResult acquired = this.store.acquire(acquireRequest(identity, "alice"));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		asPreviousReleaseHash(keys.lease(identity.keyDigest()), StoredRecord.encode(acquired.lease()));
		LeaseResult refused = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(redis.type(keys.lease(identity.keyDigest()))).isEqualTo(DataType.STRING);
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity, "c", Instant.now().plusSeconds(5))).lease())
			.isEqualTo(acquired.lease());
		assertThat(this.alerts).isEmpty();
	}

	/** Rewrites a lease key as the previous v2 release stored it: hash {r = record}, same physical TTL. */
	private static void asPreviousReleaseHash(String key, String record) {
		long ttlMs = redis.getExpire(key, TimeUnit.MILLISECONDS);
		redis.delete(key);
		redis.opsForHash().put(key, "r", record);
		redis.expire(key, Duration.ofMillis(ttlMs));
	}

	@Test
	void fencedCheckpointOfAV1LeaseIsAcceptedForItsHolderWithoutConvertingTheRecordAndRefusedOnceItEnded() {
		LockIdentity identity = identity("t-cp");
		AcquireRequest request = acquireRequest(identity, "alice");
		V1Lease v1 = v1Acquire(request);
		RedisKeys keys = RedisKeys.of(identity);
		String leaseKey = keys.lease(identity.keyDigest());
		LeaseContext holder = new LeaseContext(v1Record(request, v1.leaseId(), v1.token()));
		RedisCheckpointStore checkpoints = new RedisCheckpointStore(redis);

		FencedWriteResult written = checkpoints.write(holder, CheckpointState.IN_PROGRESS, "v1 50%");
		assertThat(written.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		// the fence functions read a v1 record as it is: no conversion, no quarantine
		assertThat(redis.type(leaseKey)).isEqualTo(DataType.HASH);
		assertThat(redis.hasKey(keys.quarantine(identity.keyDigest()))).isFalse();
		Checkpoint stored = checkpoints.read(identity).found().orElseThrow();
		assertThat(stored.progress()).isEqualTo("v1 50%");
		assertThat(stored.fencingToken()).isEqualTo(v1.token());
		assertThat(stored.leaseId()).isEqualTo(v1.leaseId());

		// another lease id with the same token is not the holder
		LeaseContext impostor = new LeaseContext(v1Record(request, Identifiers.generate("lease"), v1.token()));
		assertThat(checkpoints.write(impostor, CheckpointState.COMPLETED, "forged").outcome())
			.isEqualTo(FenceOutcome.LEASE_LOST);

		v1Release(identity, v1, "alice");
		FencedWriteResult late = checkpoints.write(holder, CheckpointState.COMPLETED, "v1 late");
		assertThat(late.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(checkpoints.read(identity).found().orElseThrow().progress()).isEqualTo("v1 50%");

		// the successor acquired by v2 gets a higher token and may checkpoint; the v1 holder stays refused
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(v1.token());
		assertThat(checkpoints.write(new LeaseContext(next.lease()), CheckpointState.COMPLETED, "bob done").outcome())
			.isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(checkpoints.write(holder, CheckpointState.FAILED, "v1 again").outcome())
			.isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(checkpoints.read(identity).found().orElseThrow().progress()).isEqualTo("bob done");
		assertThat(this.alerts).isEmpty();
	}

	/**
	 * The consumer fence (the listener advice, the library's consume) on a lease written by the v1 scripts: its
	 * (lease id, token) read from the 26-field hash is accepted and raises the mark without converting the hash;
	 * forged tokens and lease ids are rejected without moving the mark; once the v1 release ended it, its token is
	 * accepted at the mark and rejected below it after the v2 successor's higher token was accepted.
	 */
	@Test
	void fencedConsumeOfAV1LeaseIsAcceptedWithoutConvertingTheRecordForgeriesNeverMoveTheMarkAndTheSuccessorWins()
			throws Throwable {
		LockIdentity identity = identity("t-consume");
		V1Lease v1 = v1Acquire(acquireRequest(identity, "alice"));
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		String leaseKey = keys.lease(digest);
		Map<Object, Object> v1Hash = redis.opsForHash().entries(leaseKey);
		FencedListenerAdvice advice = consumerAdvice();

		// forged before anything was accepted: no mark is written
		assertThat(consume(advice, identity, v1.leaseId(), v1.token() + 1))
			.isEqualTo("forged_token_above_issued_counter");
		assertThat(consume(advice, identity, Identifiers.generate("lease"), v1.token()))
			.isEqualTo("forged_unknown_lease_id");
		assertThat(redis.hasKey(advice.key(digest))).isFalse();

		assertThat(consume(advice, identity, v1.leaseId(), v1.token())).isEqualTo("accepted");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(v1.token()));
		assertThat(redis.<String, String>opsForHash().get(advice.key(digest), "lease_id")).isEqualTo(v1.leaseId());
		// the fence functions read a v1 record as it is: no conversion, no quarantine
		assertThat(redis.type(leaseKey)).isEqualTo(DataType.HASH);
		assertThat(redis.opsForHash().entries(leaseKey)).isEqualTo(v1Hash);
		assertThat(redis.hasKey(keys.quarantine(digest))).isFalse();

		// forged after the accept: rejected, the mark stays
		assertThat(consume(advice, identity, v1.leaseId(), v1.token() + 1))
			.isEqualTo("forged_token_above_issued_counter");
		assertThat(consume(advice, identity, v1.leaseId(), (1L << 53) - 2))
			.isEqualTo("forged_token_above_issued_counter");
		assertThat(consume(advice, identity, Identifiers.generate("lease"), v1.token()))
			.isEqualTo("forged_lease_id_mismatch");
		assertThat(consume(advice, identity, v1.leaseId(), v1.token() - 1)).isEqualTo("token_below_high_water_mark");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(v1.token()));
		assertThat(redis.type(leaseKey)).isEqualTo(DataType.HASH);

		v1Release(identity, v1, "alice");
		assertThat(redis.hasKey(leaseKey)).isFalse();
		assertThat(consume(advice, identity, v1.leaseId(), v1.token())).as("ended, at the mark").isEqualTo("accepted");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(v1.token()));

		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		long nextToken = next.lease().fencingToken();
		assertThat(nextToken).isGreaterThan(v1.token());
		assertThat(consume(advice, identity, next.lease().leaseId(), nextToken)).isEqualTo("accepted");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(nextToken));
		assertThat(consume(advice, identity, v1.leaseId(), v1.token())).isEqualTo("token_below_high_water_mark");
		assertThat(consume(advice, identity, v1.leaseId(), nextToken)).isEqualTo("forged_lease_id_mismatch");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(nextToken));
		assertThat(this.alerts).isEmpty();
	}

	/**
	 * A v1 lease ended by the v1 release before any of its messages was consumed: its (lease id, token) is found
	 * only in the identity's history, as the v1 JSON entry (the lease key holds the v2 successor), and raises the
	 * mark; its lease id with another issued token, or an unknown lease id, is forged and leaves no mark.
	 */
	@Test
	void fencedConsumeRecognisesAV1LeaseEndedByTheV1ReleaseFromItsJsonHistoryEntry() throws Throwable {
		LockIdentity identity = identity("t-consume-ended");
		V1Lease v1 = v1Acquire(acquireRequest(identity, "alice"));
		v1Release(identity, v1, "alice");
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		long nextToken = next.lease().fencingToken();
		assertThat(nextToken).isGreaterThan(v1.token());
		assertThat(redis.type(keys.lease(digest))).isEqualTo(DataType.STRING);
		assertThat(redis.opsForList().range(keys.history(digest), 0, -1)).as("the v1 JSON entry is still there")
			.singleElement().asString().startsWith("{").contains("\"lease_id\":\"" + v1.leaseId() + "\"");
		FencedListenerAdvice advice = consumerAdvice();

		assertThat(consume(advice, identity, v1.leaseId(), nextToken)).isEqualTo("forged_lease_id_mismatch");
		assertThat(consume(advice, identity, Identifiers.generate("lease"), v1.token()))
			.isEqualTo("forged_unknown_lease_id");
		assertThat(redis.hasKey(advice.key(digest))).isFalse();

		assertThat(consume(advice, identity, v1.leaseId(), v1.token())).isEqualTo("accepted");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(v1.token()));
		assertThat(consume(advice, identity, v1.leaseId(), v1.token())).isEqualTo("accepted");
		assertThat(consume(advice, identity, next.lease().leaseId(), nextToken)).isEqualTo("accepted");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(nextToken));
		assertThat(consume(advice, identity, v1.leaseId(), v1.token())).isEqualTo("token_below_high_water_mark");
		assertThat(mark(advice, identity)).isEqualTo(Long.toString(nextToken));
		assertThat(this.alerts).isEmpty();
	}

	/** The consumer fence of this test's program (fenced messages required). */
	private FencedListenerAdvice consumerAdvice() {
		return new FencedListenerAdvice(redis, ProgramScope.of("tenant-up", this.program), true,
				new ConsumerRejectionRecorder());
	}

	/**
	 * Delivers a fenced message through the advice as a listener container would: {@code accepted} when the
	 * listener ran, else the wire name of the rejection (the listener did not run).
	 */
	private static String consume(FencedListenerAdvice advice, LockIdentity identity, String leaseId, long token)
			throws Throwable {
		MessageProperties properties = new MessageProperties();
		properties.setHeader(FenceHeaders.TOKEN, token);
		properties.setHeader(FenceHeaders.LOCK_KEY_DIGEST, identity.keyDigest());
		properties.setHeader(FenceHeaders.LEASE_ID, leaseId);
		Message message = new Message(new byte[0], properties);
		boolean[] listenerRan = { false };
		MethodInvocation invocation = new MethodInvocation() {

			@Override
			public Method getMethod() {
				throw new UnsupportedOperationException();
			}

			@Override
			public Object[] getArguments() {
				return new Object[] { message };
			}

			@Override
			public Object proceed() {
				listenerRan[0] = true;
				return null;
			}

			@Override
			public Object getThis() {
				return null;
			}

			@Override
			public AccessibleObject getStaticPart() {
				throw new UnsupportedOperationException();
			}

		};
		try {
			advice.invoke(invocation);
		}
		catch (FencedMessageRejectedException ex) {
			assertThat(listenerRan[0]).as("the listener ran for a rejected message").isFalse();
			return ex.reason().wireName();
		}
		assertThat(listenerRan[0]).as("the listener ran").isTrue();
		return "accepted";
	}

	/** The consumed high-water mark of an identity (null when nothing was accepted). */
	private static String mark(FencedListenerAdvice advice, LockIdentity identity) {
		return redis.<String, String>opsForHash().get(advice.key(identity.keyDigest()), "hwm");
	}

	/** The record the v1 holder has in memory (read from the v1 hash, without touching it through the store). */
	private static LeaseRecord v1Record(AcquireRequest r, String leaseId, long token) {
		Map<Object, Object> hash = redis.opsForHash()
			.entries(RedisKeys.of(r.identity()).lease(r.identity().keyDigest()));
		return new LeaseRecord(r.identity(), leaseId, r.owner(), token,
				Instant.parse((String) hash.get("acquired_at")), Instant.parse((String) hash.get("renewed_at")),
				Instant.parse((String) hash.get("expires_at")), r.ttlMs(), r.maximumLifetimeMs(), r.executionId(),
				r.jobId(), r.traceId(), r.requestId(), r.metadata(), LeaseState.ACTIVE);
	}

	private record V1Lease(String leaseId, long token) {
	}

	/** Runs the v1 acquire script exactly as the v1 store called it (its 30-slot ARGV). */
	private static V1Lease v1Acquire(AcquireRequest r) {
		String leaseId = Identifiers.generate("lease");
		List<Object> reply = v1AcquireReply(r, leaseId);
		assertThat(reply.get(0)).isEqualTo("lease_acquired");
		RedisKeys keys = RedisKeys.of(r.identity());
		Map<Object, Object> hash = redis.opsForHash().entries(keys.lease(r.identity().keyDigest()));
		assertThat(hash).hasSize(26).containsEntry("lease_id", leaseId);
		return new V1Lease(leaseId, Long.parseLong((String) hash.get("fencing_token")));
	}

	/** The v1 acquire script's raw reply. */
	@SuppressWarnings("unchecked")
	private static List<Object> v1AcquireReply(AcquireRequest r, String leaseId) {
		LockIdentity identity = r.identity();
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		LeasePolicy policy = RedisServers.POLICY;
		List<String> args = v1Identity(identity, r.deadlineAt(), policy);
		args.addAll(List.of(r.digest(), ms(policy.idempotencyRetention().toMillis()),
				ms(policy.maximumDeadline().toMillis()), ms(policy.clockSkewBound().toMillis()), leaseId,
				ms(r.ttlMs()), ms(r.maximumLifetimeMs()), ms(PHYSICAL_GRACE_MS), r.owner().principalId(),
				r.owner().clientId(), r.owner().credentialId(), r.owner().serviceInstanceId(), r.executionId(),
				r.jobId(), r.traceId(), r.requestId(), r.metadata().json()));
		List<Object> reply = redis.execute(v1Acquire, List.of(keys.lease(digest), keys.fence(digest),
				keys.idempotency(Operation.ACQUIRE, identity.lockKey(), r.principalId(), r.requestId())),
				args.toArray());
		return reply;
	}

	@SuppressWarnings("unchecked")
	private static void v1Release(LockIdentity identity, V1Lease lease, String owner) {
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		String requestId = Identifiers.generate("request");
		LeasePolicy policy = RedisServers.POLICY;
		List<String> args = v1Identity(identity, Instant.now().plusSeconds(10), policy);
		args.addAll(List.of("digest-" + requestId, ms(policy.idempotencyRetention().toMillis()),
				ms(policy.maximumDeadline().toMillis()), lease.leaseId(), owner, "instance-" + owner,
				Long.toString(lease.token())));
		List<Object> reply = redis.execute(v1Release, List.of(keys.lease(digest),
				keys.idempotency(Operation.RELEASE, identity.lockKey(), owner, requestId)), args.toArray());
		assertThat(reply.get(0)).isEqualTo("lease_released");
		assertThat(redis.opsForList().range(keys.history(digest), 0, -1)).singleElement().asString()
			.contains("\"state\":\"released\"");
	}

	/** ARGV[1..13] of the v1 shared identity layout. */
	private static List<String> v1Identity(LockIdentity identity, Instant deadline, LeasePolicy policy) {
		List<String> args = new ArrayList<>();
		args.add(ms(deadline.toEpochMilli()));
		args.add(RedisKeys.of(identity).base());
		args.add(identity.keyDigest());
		args.add(identity.lockKey());
		args.addAll(identity.components());
		args.add(Integer.toString(policy.historyLength()));
		args.add(ms(policy.historyRetention().toMillis()));
		return args;
	}

	private static String ms(long value) {
		return Long.toString(value);
	}

	private static String v1(String name) {
		try (InputStream in = RedisStorageUpgradeTests.class.getResourceAsStream("v1/" + name)) {
			assertThat(in).as("v1 fixture %s", name).isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
