package io.starintel.lease.fence.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.job.LeaseContext;
import io.starintel.lease.store.redis.RedisKeys;

/**
 * Redis {@link CheckpointStore}: {@code checkpoint.lua} (prepended with the lease store's {@code prelude.lua})
 * validates the lease and writes the hash {@code P{T}:checkpoint:D} in one script.
 */
public final class RedisCheckpointStore implements CheckpointStore {

	/** Maximum length of the progress text. */
	public static final int MAX_PROGRESS_LENGTH = 1024;

	private static final Logger logger = LoggerFactory.getLogger(RedisCheckpointStore.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SCRIPT = new DefaultRedisScript<>(
			read("/io/starintel/lease/store/redis/prelude.lua") + "\n"
					+ read("/io/starintel/lease/fence/checkpoint/checkpoint.lua"),
			List.class);

	private final StringRedisTemplate redis;

	private final Duration timeout;

	private final Clock clock;

	/** A store on the given template with a 2 s deadline per write. */
	public RedisCheckpointStore(StringRedisTemplate redis) {
		this(redis, Duration.ofSeconds(2), Clock.systemUTC());
	}

	/** A store whose writes carry a deadline of {@code timeout} from the caller's clock. */
	public RedisCheckpointStore(StringRedisTemplate redis, Duration timeout, Clock clock) {
		this.redis = redis;
		this.timeout = timeout;
		this.clock = clock;
	}

	/** The checkpoint key of an identity: {@code P{T}:checkpoint:D}. */
	public static String key(LockIdentity identity) {
		return RedisKeys.of(identity).base() + "checkpoint:" + identity.keyDigest();
	}

	@Override
	public FencedWriteResult writeCurrent(CheckpointState state, String progress) {
		LeaseContext context = LeaseContext.currentOrNull();
		if (context == null) {
			return FencedWriteResult.refused(FenceOutcome.NO_LEASE_CONTEXT, Reason.NONE,
					Identifiers.generate("corr"), null, null);
		}
		return write(context, state, progress);
	}

	@Override
	public FencedWriteResult write(LeaseContext context, CheckpointState state, String progress) {
		if (progress.length() > MAX_PROGRESS_LENGTH) {
			throw new IllegalArgumentException("progress must be at most " + MAX_PROGRESS_LENGTH + " characters");
		}
		String correlationId = Identifiers.generate("corr");
		LeaseHandle handle = context.handle();
		LockIdentity identity = handle.identity();
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		Instant deadline = this.clock.instant().plus(this.timeout);
		List<String> components = identity.components();
		List<?> reply;
		try {
			reply = this.redis.execute(SCRIPT, List.of(keys.lease(digest), keys.fence(digest), key(identity)),
					Long.toString(deadline.toEpochMilli()), identity.lockKey(), components.get(0), components.get(1),
					components.get(2), components.get(3), components.get(4), components.get(5), components.get(6),
					handle.leaseId(), handle.ownerPrincipalId(), handle.serviceInstanceId(),
					Long.toString(handle.fencingToken()), state.wireName(), progress, context.executionId(),
					context.traceId(), correlationId);
		}
		catch (RedisConnectionFailureException ex) {
			return failed(FenceOutcome.BACKEND_UNAVAILABLE, correlationId, ex);
		}
		catch (DataAccessException ex) {
			return failed(FenceOutcome.OUTCOME_UNKNOWN, correlationId, ex);
		}
		if (reply == null || reply.size() < 3) {
			return FencedWriteResult.refused(FenceOutcome.OUTCOME_UNKNOWN, Reason.REPLY_LOST, correlationId, null,
					null);
		}
		String code = String.valueOf(reply.get(0));
		Reason reason = Reason.fromWireName(String.valueOf(reply.get(1)));
		Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(String.valueOf(reply.get(2))));
		FenceStamp stamp = new FenceStamp(digest, handle.fencingToken(), handle.leaseId(), context.executionId(),
				context.traceId(), decidedAt);
		switch (code) {
			case "checkpoint_written":
				return new FencedWriteResult(FenceOutcome.ACCEPTED, Reason.NONE, correlationId, null, stamp);
			case "lease_lost":
				context.markLost(reason);
				return FencedWriteResult.refused(FenceOutcome.LEASE_LOST, reason, correlationId, null, null);
			case "deadline_exceeded":
				return FencedWriteResult.refused(FenceOutcome.DEADLINE_EXCEEDED, reason, correlationId, null, null);
			default:
				return FencedWriteResult.refused(FenceOutcome.BACKEND_UNAVAILABLE, reason, correlationId, null, null);
		}
	}

	@Override
	public Optional<Checkpoint> read(LockIdentity identity) {
		Map<Object, Object> hash = this.redis.opsForHash().entries(key(identity));
		if (hash.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(new Checkpoint(CheckpointState.fromWireName(text(hash, "state")), text(hash, "progress"),
				Long.parseLong(text(hash, "fencing_token")), text(hash, "lease_id"), text(hash, "execution_id"),
				text(hash, "trace_id"), Instant.parse(text(hash, "updated_at"))));
	}

	private static String text(Map<Object, Object> hash, String field) {
		Object value = hash.get(field);
		if (value == null) {
			throw new IllegalStateException("checkpoint field missing: " + field);
		}
		return value.toString();
	}

	private static FencedWriteResult failed(FenceOutcome outcome, String correlationId, RuntimeException ex) {
		logger.warn("Checkpoint write without a safe answer, correlation_id={}, error={}", correlationId,
				ex.getClass().getSimpleName());
		return FencedWriteResult.refused(outcome, Reason.NONE, correlationId, null, null);
	}

	private static String read(String path) {
		try (InputStream in = new ClassPathResource(path).getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
