package io.starintel.lease.it.redis;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedMessageRejectedException;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.internal.RedisKeys;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rolling upgrade from storage v2 to v3 (docs/redis-store.md, "Upgrade from storage v2"), on data written by the
 * previous release's own function library ({@link V2Library}, fixture copies of its Lua files): a healthy v2 lease is
 * read, kept by its holder (renewed, released, fenced), converted on the first write (its counter carried over: tokens
 * never go backwards), never quarantined; a v2 lease id still resolves; a v2 idempotency record replays with the
 * lease's actual state; and a v2 process that meets an identity v3 wrote refuses with a typed result
 * ({@code lease_backend_unavailable}, {@code corrupt_record}), never granting a second holder.
 */
class RedisStorageUpgradeTests extends SharedRedisTests {

	private static StringRedisTemplate redis;

	private static V2Library v2;

	private final List<LeaseAlert> alerts = new CopyOnWriteArrayList<>();

	private RedisLeaseStore store;

	private String program;

	@BeforeAll
	static void fixture() {
		redis = new StringRedisTemplate(factory);
		URI uri = server.uri();
		v2 = new V2Library(uri.getHost(), uri.getPort(), RedisServers.POLICY);
	}

	@AfterAll
	static void closeFixture() {
		if (v2 != null) {
			v2.close();
		}
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

	private static Instant deadline() {
		return Instant.now().plusSeconds(5);
	}

	/** The v2 lease as its holder has it: the record the v3 store reads (inspect does not convert). */
	private LeaseRecord inspectV2(LockIdentity identity, V2Library.V2Result lease) {
		LeaseResult inspected = this.store.inspect(InspectRequest.byIdentity(identity, "c", deadline()));
		assertThat(inspected.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(inspected.lease().leaseId()).isEqualTo(lease.leaseId());
		assertThat(inspected.lease().fencingToken()).isEqualTo(lease.token());
		return inspected.lease();
	}

	@Test
	void healthyV2LeaseIsKeptByItsHolderAndConvertedOnTheFirstWrite() {
		LockIdentity identity = identity("t1");
		AcquireRequest request = acquireRequest(identity, "alice");
		V2Library.V2Result lease = v2.acquire(request);
		assertThat(lease.acquired()).isTrue();
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		LeaseRecord record = inspectV2(identity, lease);
		assertThat(record.metadata()).isEqualTo(request.metadata());
		assertThat(redis.type(keys.lease(digest))).as("read, not converted").isEqualTo(DataType.STRING);
		assertThat(redis.hasKey(keys.identity(digest))).isFalse();
		// another owner is refused by the v2 lease
		assertThat(this.store.acquire(acquireRequest(identity, "bob")).code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		// its v2 lease id resolves (the v2 lid key) while it is active
		LeaseResult byId = this.store.inspect(InspectRequest.byLeaseId(identity.scope(), lease.leaseId(), "c",
				deadline()));
		assertThat(byId.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(byId.lease().leaseId()).isEqualTo(lease.leaseId());

		// the holder renews through v3: the first write converts the identity
		LeaseResult renewed = this.store.renew(new RenewRequest(record.handle(), Identifiers.generate("request"),
				deadline()));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().fencingToken()).isEqualTo(lease.token());
		assertThat(redis.type(keys.identity(digest))).isEqualTo(DataType.HASH);
		assertThat(redis.<String, String>opsForHash().get(keys.identity(digest), "c"))
			.as("the counter carried over").isEqualTo(Long.toString(lease.token()));
		assertThat(redis.opsForValue().get(keys.lease(digest))).as("the tombstone a v2 process refuses").isEqualTo("3");
		assertThat(this.store.authorizeCommit(new io.starintel.lease.core.CommitRequest(renewed.lease().handle(),
				"corr_1", deadline())).code()).isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);

		LeaseResult released = this.store.release(new ReleaseRequest(renewed.lease().handle(),
				Identifiers.generate("request"), deadline()));
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(redis.opsForValue().get(keys.leaseId(lease.leaseId())))
			.as("the v2 lease id's terminal state").isEqualTo(digest + "\u001freleased");
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(lease.token());
		assertThat(redis.hasKey(keys.quarantine(digest))).isFalse();
		assertThat(this.alerts).isEmpty();
	}

	@Test
	void v2IdempotencyRecordReplaysTheOriginalResultWithTheActualState() {
		LockIdentity identity = identity("t-replay");
		AcquireRequest request = acquireRequest(identity, "alice");
		V2Library.V2Result lease = v2.acquire(request);
		LeaseRecord record = inspectV2(identity, lease);
		assertThat(v2.release(new ReleaseRequest(record.handle(), Identifiers.generate("request"), deadline())))
			.isEqualTo("lease_released");
		// the same request (id and body) retried after the upgrade: the v2 result, never a second lease
		AcquireRequest retry = new AcquireRequest(identity, request.requestId(), deadline(), request.owner(),
				request.ttlMs(), request.maximumLifetimeMs(), request.executionId(), request.jobId(),
				request.traceId(), request.metadata());
		LeaseResult replayed = this.store.acquire(retry);
		assertThat(replayed.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replayed.replayed()).isTrue();
		assertThat(replayed.lease().leaseId()).isEqualTo(lease.leaseId());
		assertThat(replayed.lease().fencingToken()).isEqualTo(lease.token());
		assertThat(replayed.currentState()).isEqualTo(LeaseState.RELEASED);
		// a new request acquires with a higher token
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(lease.token());
	}

	@Test
	void v2ProcessMeetingAnIdentityV3WroteRefusesWithATypedResultAndNeverGrants() {
		LockIdentity identity = identity("t-mixed");
		LeaseResult alice = this.store.acquire(acquireRequest(identity, "alice"));
		assertThat(alice.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		// a v2 process of the same program during the rollout
		V2Library.V2Result bob = v2.acquire(acquireRequest(identity, "bob"));
		assertThat(bob.acquired()).isFalse();
		assertThat(bob.code()).isEqualTo("lease_backend_unavailable");
		assertThat(bob.reason()).isEqualTo("corrupt_record");
		// the v3 holder is not disturbed
		LeaseResult renewed = this.store.renew(new RenewRequest(alice.lease().handle(), Identifiers.generate("request"),
				deadline()));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(this.store.release(new ReleaseRequest(alice.lease().handle(), Identifiers.generate("request"),
				deadline())).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		// nor after the v3 lease ended: the identity stays v3's
		V2Library.V2Result again = v2.acquire(acquireRequest(identity, "bob"));
		assertThat(again.acquired()).isFalse();
		assertThat(again.reason()).isEqualTo("corrupt_record");
		LeaseResult next = this.store.acquire(acquireRequest(identity, "carol"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(next.lease().fencingToken()).isGreaterThan(alice.lease().fencingToken());
		assertThat(this.alerts).as("v3 never reads the v2 process's quarantine copy").isEmpty();
	}

	@Test
	void fencedCheckpointAndConsumeOfAV2LeaseAcceptItsHolderAndRefuseItOnceEnded() throws Throwable {
		LockIdentity identity = identity("t-fence");
		AcquireRequest request = acquireRequest(identity, "alice");
		V2Library.V2Result lease = v2.acquire(request);
		LeaseRecord record = inspectV2(identity, lease);
		LeaseContext holder = new LeaseContext(record);
		RedisCheckpointStore checkpoints = new RedisCheckpointStore(redis);
		assertThat(checkpoints.write(holder, CheckpointState.IN_PROGRESS, "v2 50%").outcome())
			.isEqualTo(FenceOutcome.ACCEPTED);
		FencedListenerAdvice advice = new FencedListenerAdvice(redis, ProgramScope.of("tenant-up", this.program), true,
				new ConsumerRejectionRecorder());
		assertThat(consume(advice, identity, lease.leaseId(), lease.token())).isEqualTo("accepted");
		assertThat(consume(advice, identity, Identifiers.generate("lease"), lease.token() + 1))
			.isEqualTo("forged_token_above_issued_counter");

		// the checkpoint was the identity's first v3 write: a v2 process now refuses it (typed, never a change) and
		// the holder releases through v3
		assertThat(v2.release(new ReleaseRequest(record.handle(), Identifiers.generate("request"), deadline())))
			.isEqualTo("lease_backend_unavailable");
		assertThat(this.store.release(new ReleaseRequest(record.handle(), Identifiers.generate("request"),
				deadline())).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(checkpoints.write(holder, CheckpointState.COMPLETED, "v2 late").outcome())
			.isEqualTo(FenceOutcome.LEASE_LOST);
		// its token is still recognised from the history ring (a message sent while it was held)
		assertThat(consume(advice, identity, lease.leaseId(), lease.token())).isEqualTo("accepted");
		LeaseResult next = this.store.acquire(acquireRequest(identity, "bob"));
		assertThat(next.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(consume(advice, identity, next.lease().leaseId(), next.lease().fencingToken()))
			.isEqualTo("accepted");
		assertThat(consume(advice, identity, lease.leaseId(), lease.token())).isEqualTo("token_below_high_water_mark");
		assertThat(this.alerts).isEmpty();
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

}
