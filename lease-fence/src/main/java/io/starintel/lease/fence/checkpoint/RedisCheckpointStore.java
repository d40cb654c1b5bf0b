package io.starintel.lease.fence.checkpoint;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.store.redis.FenceCallException;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.store.redis.FenceFunction;

/**
 * Redis {@link CheckpointStore}: the lease function library's {@code checkpoint}
 * ({@code store/redis/fence_checkpoint.lua}: the lease store's own record reader, backend time, exact-holder check and
 * high-water mark) validates the lease and writes the hash {@code P{T}:checkpoint:D} in one FCALL, idempotent by the request id ({@code P{T}:checkpoint:D:req:R} keeps the
 * decision for {@code retention}). Each call waits for its reply no longer than its deadline ({@code timeout} from
 * the caller's clock), whatever the client's command timeout: a call that was submitted without a reply in time is
 * {@link FenceOutcome#OUTCOME_UNKNOWN} with reason {@code reply_lost}, resolved by sending the same write again with
 * the result's correlation id. Calls go through the lease store's {@link ScriptExecutor} (the library is loaded
 * when the server answers "function not found"). No Redis exception crosses this class.
 */
public final class RedisCheckpointStore implements CheckpointStore {

	/** Maximum length of the progress text. */
	public static final int MAX_PROGRESS_LENGTH = 1024;

	/** Default retention of a request's decision (how long a re-sent write is answered from the first run). */
	public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

	private static final Logger logger = LoggerFactory.getLogger(RedisCheckpointStore.class);

	private static final Pattern TOKEN = Pattern.compile("[0-9]{1,16}");

	private final FenceCalls calls;

	private final Duration timeout;

	private final Duration retention;

	private volatile @Nullable Consumer<AuditEvent> audit;

	private volatile @Nullable Consumer<FencedWriteResult> results;

	private final Clock clock;

	/** A store on the given template with a 2 s deadline per call. */
	public RedisCheckpointStore(StringRedisTemplate redis) {
		this(redis, Duration.ofSeconds(2), Clock.systemUTC());
	}

	/** A store whose calls carry a deadline of {@code timeout} from the caller's clock. */
	public RedisCheckpointStore(StringRedisTemplate redis, Duration timeout, Clock clock) {
		this(redis, timeout, DEFAULT_RETENTION, clock);
	}

	/** As above, keeping each request's decision for {@code retention}. */
	public RedisCheckpointStore(StringRedisTemplate redis, Duration timeout, Duration retention, Clock clock) {
		this(FenceCalls.create(redis::getRequiredConnectionFactory, "starintel-lease"), timeout, retention, clock);
	}

	/**
	 * A store on the lease store's fence calls ({@code RedisLeaseStore#fenceCalls}: the same connections, replica
	 * acknowledgement and failover recovery), with a deadline of {@code timeout} per call, keeping each request's
	 * decision for {@code retention}.
	 */
	public RedisCheckpointStore(FenceCalls calls, Duration timeout, Duration retention, Clock clock) {
		if (timeout.isNegative() || timeout.isZero() || retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("timeout and retention must be positive");
		}
		this.calls = calls;
		this.timeout = timeout;
		this.retention = retention;
		this.clock = clock;
	}

	/** How long each write's decision is kept (a re-sent write is answered from its first run for this long). */
	public Duration retention() {
		return this.retention;
	}

	/** The checkpoint key of an identity: {@code P{T}:checkpoint:D}. */
	public static String key(LockIdentity identity) {
		return FenceCalls.base(identity.scope()) + "checkpoint:" + identity.keyDigest();
	}

	/** The key keeping the decision of one request: {@code P{T}:checkpoint:D:req:R}. */
	static String requestKey(LockIdentity identity, String requestId) {
		return key(identity) + ":req:" + sha256(requestId);
	}

	@Override
	public FencedWriteResult writeCurrent(CheckpointState state, String progress) {
		LeaseContext context = LeaseContext.currentOrNull();
		if (context == null) {
			return observed(FencedWriteResult.refused(FenceOutcome.NO_LEASE_CONTEXT, Reason.NONE,
					Identifiers.generate("corr"), null, null));
		}
		return write(context, state, progress);
	}

	@Override
	public FencedWriteResult write(LeaseContext context, CheckpointState state, String progress) {
		return write(context, state, progress, Identifiers.generate("corr"));
	}

	/**
	 * Where each write's audit event goes (e.g. the audit auto-configuration's non-blocking pipeline), or
	 * {@code null} for none: {@code target_lease_commit_authorize} for a written checkpoint,
	 * {@code target_lease_commit_rejected} for a refused or unanswered one, with the code the caller is answered and
	 * the reason {@code checkpoint:<reason>} (the enforcement point, as {@code authorize_commit:} and
	 * {@code amqp_consume:}).
	 */
	public void setAuditSink(@Nullable Consumer<AuditEvent> audit) {
		this.audit = audit;
	}

	/**
	 * Who sees every write's result (e.g. the auto-configuration's rejection counter), or {@code null} for none; a
	 * listener that throws never changes the answer.
	 */
	public void setResultListener(@Nullable Consumer<FencedWriteResult> listener) {
		this.results = listener;
	}

	private FencedWriteResult observed(FencedWriteResult result) {
		Consumer<FencedWriteResult> listener = this.results;
		if (listener != null) {
			try {
				listener.accept(result);
			}
			catch (RuntimeException ex) {
				logger.debug("A checkpoint result listener failed: {}", ex.getClass().getName());
			}
		}
		return result;
	}

	@Override
	public FencedWriteResult write(LeaseContext context, CheckpointState state, String progress, String requestId) {
		Instant started = this.clock.instant();
		FencedWriteResult result = decide(context, state, progress, requestId);
		audit(context, result, started);
		return observed(result);
	}

	/** One audit event per write, never failing the write (contract: every request emits an audit event). */
	private void audit(LeaseContext context, FencedWriteResult result, Instant started) {
		Consumer<AuditEvent> sink = this.audit;
		if (sink == null) {
			return;
		}
		try {
			AuditEventBuilder b = new AuditEventBuilder(
					result.isAccepted() ? AuditEventType.COMMIT_AUTHORIZE : AuditEventType.COMMIT_REJECTED,
					code(result.outcome()))
				.record(context.lease())
				.ids(null, result.correlationId())
				.reason("checkpoint:" + result.reason().wireName())
				.time(this.clock.instant(), started)
				.deadline(started.plus(this.timeout), started);
			sink.accept(b.build());
		}
		catch (RuntimeException ex) {
			logger.warn("Checkpoint audit failed, correlation_id={} ({})", result.correlationId(),
					ex.getClass().getSimpleName());
		}
	}

	private static ResultCode code(FenceOutcome outcome) {
		return switch (outcome) {
			case ACCEPTED, ACCEPTED_MARK_PENDING -> ResultCode.LEASE_COMMIT_AUTHORIZED;
			case LEASE_LOST, NO_LEASE_CONTEXT -> ResultCode.LEASE_LOST;
			case DEADLINE_EXCEEDED -> ResultCode.DEADLINE_EXCEEDED;
			case CONFLICT -> ResultCode.IDEMPOTENCY_CONFLICT;
			case OUTCOME_UNKNOWN -> ResultCode.LEASE_OUTCOME_UNKNOWN;
			case INVALID_REQUEST -> ResultCode.INVALID_LEASE_REQUEST;
			default -> ResultCode.LEASE_BACKEND_UNAVAILABLE;
		};
	}

	private FencedWriteResult decide(LeaseContext context, CheckpointState state, String progress, String requestId) {
		if (progress.length() > MAX_PROGRESS_LENGTH) {
			throw new IllegalArgumentException("progress must be at most " + MAX_PROGRESS_LENGTH + " characters");
		}
		if (requestId.isEmpty() || requestId.length() > 128) {
			throw new IllegalArgumentException("requestId must have 1 to 128 characters");
		}
		LeaseHandle handle = context.handle();
		LockIdentity identity = handle.identity();
		String digest = identity.keyDigest();
		Instant deadline = this.clock.instant().plus(this.timeout);
		String token = Long.toString(handle.fencingToken());
		String requestDigest = sha256(String.join("\n", state.wireName(), progress, handle.leaseId(), token,
				context.executionId()));
		List<Object> reply;
		try {
			reply = this.calls.run(FenceFunction.CHECKPOINT, deadline,
					CheckpointArguments.checkpointKeys(this.calls, identity, requestId),
					CheckpointArguments.checkpointArgs(this.calls, context, deadline, state, progress, requestId,
							requestDigest, this.retention.toMillis()));
		}
		catch (FenceCallException ex) {
			return failed(ex, requestId);
		}
		if (reply.size() < 4) {
			return FencedWriteResult.refused(FenceOutcome.OUTCOME_UNKNOWN, Reason.REPLY_LOST, requestId, null, null);
		}
		String code = text(reply.get(0));
		Reason reason = reason(text(reply.get(1)));
		String detail = "1".equals(text(reply.get(3))) ? "replayed" : null;
		Instant decidedAt;
		try {
			decidedAt = Instant.ofEpochMilli(Long.parseLong(text(reply.get(2))));
		}
		catch (NumberFormatException ex) {
			return FencedWriteResult.refused(FenceOutcome.OUTCOME_UNKNOWN, Reason.REPLY_LOST, requestId, null, null);
		}
		switch (code) {
			case "checkpoint_written":
				return new FencedWriteResult(FenceOutcome.ACCEPTED, Reason.NONE, requestId, detail,
						new FenceStamp(digest, handle.fencingToken(), handle.leaseId(), context.executionId(),
								context.traceId(), decidedAt));
			case "lease_lost":
				context.markLost(reason);
				return FencedWriteResult.refused(FenceOutcome.LEASE_LOST, reason, requestId, detail, null);
			case "deadline_exceeded":
				return FencedWriteResult.refused(FenceOutcome.DEADLINE_EXCEEDED, reason, requestId, null, null);
			case "idempotency_conflict":
				return FencedWriteResult.refused(FenceOutcome.CONFLICT, Reason.NONE, requestId,
						"idempotency_conflict: the request id was used for another checkpoint", null);
			default:
				return FencedWriteResult.refused(FenceOutcome.BACKEND_UNAVAILABLE, reason, requestId, null, null);
		}
	}

	@Override
	public CheckpointRead read(LockIdentity identity) {
		List<Object> reply;
		try {
			Instant deadline = this.clock.instant().plus(this.timeout);
			reply = this.calls.run(FenceFunction.CHECKPOINT_READ, deadline, CheckpointArguments.readKeys(identity),
					CheckpointArguments.readArgs(deadline));
		}
		catch (FenceCallException ex) {
			logger.warn("Checkpoint read without an answer, error={}", ex.kind());
			return CheckpointRead.of(CheckpointReadStatus.BACKEND_UNAVAILABLE);
		}
		if (reply.isEmpty() || "deadline_exceeded".equals(text(reply.get(0)))) {
			return CheckpointRead.of(CheckpointReadStatus.BACKEND_UNAVAILABLE);
		}
		if ("corrupt_record".equals(text(reply.get(0)))) {
			return CheckpointRead.of(CheckpointReadStatus.CORRUPT_RECORD);
		}
		if (reply.size() == 1) {
			return CheckpointRead.of(CheckpointReadStatus.NOT_FOUND);
		}
		Map<String, String> hash = new HashMap<>();
		for (int i = 1; i + 1 < reply.size(); i += 2) {
			hash.put(text(reply.get(i)), text(reply.get(i + 1)));
		}
		try {
			return new CheckpointRead(CheckpointReadStatus.FOUND,
					new Checkpoint(CheckpointState.fromWireName(field(hash, "state")), field(hash, "progress"),
							storedToken(field(hash, "fencing_token")), field(hash, "lease_id"),
							field(hash, "execution_id"), field(hash, "trace_id"),
							Instant.parse(field(hash, "updated_at"))));
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			return CheckpointRead.of(CheckpointReadStatus.CORRUPT_RECORD);
		}
	}

	/** A stored token as fence.lua writes one: decimal digits, a valid fencing token; anything else is corrupt. */
	private static long storedToken(String text) {
		if (!TOKEN.matcher(text).matches()) {
			throw new IllegalArgumentException("checkpoint token corrupt");
		}
		long token = Long.parseLong(text);
		if (token < 1 || token >= LeaseRecord.MAX_FENCING_TOKEN) {
			throw new IllegalArgumentException("checkpoint token corrupt");
		}
		return token;
	}

	private static String field(Map<String, String> hash, String name) {
		String value = hash.get(name);
		if (value == null) {
			throw new IllegalArgumentException("checkpoint field missing");
		}
		return value;
	}

	private static String text(@Nullable Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		return String.valueOf(value);
	}

	private static Reason reason(String wireName) {
		try {
			return Reason.fromWireName(wireName);
		}
		catch (IllegalArgumentException ex) {
			return Reason.NONE;
		}
	}

	private static FencedWriteResult failed(FenceCallException failure, String requestId) {
		logger.warn("Checkpoint write without an answer, correlation_id={}, error={} ({})", requestId, failure.kind(),
				failure.getMessage());
		return switch (failure.kind()) {
			case DEADLINE_BEFORE_SUBMISSION ->
				FencedWriteResult.refused(FenceOutcome.DEADLINE_EXCEEDED, Reason.NONE, requestId, null, null);
			case NOT_SUBMITTED -> FencedWriteResult.refused(FenceOutcome.BACKEND_UNAVAILABLE, failure.reason(),
					requestId, null, null);
			case OUTCOME_UNKNOWN -> FencedWriteResult.refused(FenceOutcome.OUTCOME_UNKNOWN, failure.reason(), requestId,
					"resolve by sending the same write with this correlation id", null);
		};
	}

	private static String sha256(String text) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by the Java platform", ex);
		}
	}

}
