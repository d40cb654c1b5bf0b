package io.starintel.lease.fence.amqp.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.ConsumeRejection;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedMessageRejectedException;
import io.starintel.lease.store.redis.FenceCallException;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.store.redis.FenceFunction;

/**
 * A listener-container advice (add it to the container's advice chain) that fences consumption: atomically in
 * Redis (the lease function library's {@code consume}, {@code store/redis/fence_consume.lua}, one FCALL) a
 * message is accepted only if its {@link FenceHeaders#TOKEN} is not below the
 * high-water mark already accepted for its lock identity, which it raises only for a token and lease id the lease
 * store issued for that identity (else the message is forged: rejected, the mark untouched); a lower token is
 * rejected without requeue
 * ({@link AmqpRejectAndDontRequeueException}: dead-lettered when the queue has a dead-letter exchange) and recorded
 * as {@code target_lease_commit_rejected}.
 *
 * <p>The key is {@code starintel:target-lease:v1:{T}:consumed:D}: {@code T} is the hash tag of the consumer's own
 * (tenant, program) {@link ProgramScope} (configured, never taken from the message), {@code D} the message's
 * lock-key digest header (validated as 43 base64url characters). Contract: reject a token lower than the durable
 * high-water mark already observed for that identity; RabbitMQ delivery metadata is not proof of ownership, so this
 * only orders effects, the publish-side authorization is the fence. Messages without fence headers are rejected
 * when {@code requireFence} is set, else passed through. When Redis cannot answer, the message is not processed and
 * the container's default (requeue) applies. A call carries a deadline ({@link #DEFAULT_TIMEOUT} unless given) and
 * waits no longer, through the lease store's {@link FenceCalls} (its connections, replica acknowledgement and failover
 * recovery).
 */
public final class FencedListenerAdvice implements MethodInterceptor {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9._:@-]{1,128}");

	private static final Pattern DIGEST = Pattern.compile("[A-Za-z0-9_-]{43}");

	/** The deadline of each check, from when it is sent. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	private final FenceCalls calls;

	private final Duration timeout;

	private final ProgramScope scope;

	private final boolean requireFence;

	private final ConsumerRejectionRecorder rejections;

	/** An advice for consumers of one program, on its own fence calls. */
	public FencedListenerAdvice(StringRedisTemplate redis, ProgramScope scope, boolean requireFence,
			ConsumerRejectionRecorder rejections) {
		this(FenceCalls.create(redis::getRequiredConnectionFactory, "starintel-lease"), DEFAULT_TIMEOUT, scope,
				requireFence, rejections);
	}

	/** An advice calling the library through the lease store's fence calls, each check bounded by {@code timeout}. */
	public FencedListenerAdvice(FenceCalls calls, Duration timeout, ProgramScope scope, boolean requireFence,
			ConsumerRejectionRecorder rejections) {
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive");
		}
		this.calls = calls;
		this.timeout = timeout;
		this.scope = scope;
		this.requireFence = requireFence;
		this.rejections = rejections;
	}

	/** The consumed high-water-mark key of an identity digest in this consumer's program. */
	public String key(String lockKeyDigest) {
		return LockIdentity.KEY_PREFIX + "{" + this.scope.hashTag() + "}:consumed:" + lockKeyDigest;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		for (Object argument : invocation.getArguments()) {
			if (argument instanceof Message message) {
				check(message);
			}
			else if (argument instanceof List<?> batch) {
				for (Object element : batch) {
					if (element instanceof Message message) {
						check(message);
					}
				}
			}
		}
		return invocation.proceed();
	}

	/**
	 * Accepts (raising the mark) or throws {@link FencedMessageRejectedException} (an
	 * {@link AmqpRejectAndDontRequeueException}) with the typed reason; forged messages never raise the mark.
	 */
	void check(Message message) {
		Map<String, @Nullable Object> headers = message.getMessageProperties().getHeaders();
		Object digest = headers.get(FenceHeaders.LOCK_KEY_DIGEST);
		Object tokenHeader = headers.get(FenceHeaders.TOKEN);
		String leaseId = identifier(headers.get(FenceHeaders.LEASE_ID));
		String traceId = identifier(headers.get(FenceHeaders.TRACE_ID));
		if (digest == null && tokenHeader == null && !this.requireFence) {
			return;
		}
		long token = parseToken(tokenHeader);
		if (!(digest instanceof String digestText) || !DIGEST.matcher(digestText).matches() || token <= 0) {
			this.rejections.rejected(this.scope, ConsumeRejection.MISSING_OR_MALFORMED_FENCE, safe(digest), token, "",
					leaseId, traceId);
			throw new FencedMessageRejectedException(ConsumeRejection.MISSING_OR_MALFORMED_FENCE);
		}
		List<Object> reply;
		try {
			Instant deadline = Instant.now().plus(this.timeout);
			reply = this.calls.run(FenceFunction.CONSUME, deadline,
					bytes(key(digestText), FenceCalls.identityKey(this.scope, digestText)),
					bytes(Long.toString(token), leaseId, FenceCalls.base(this.scope), digestText,
							Long.toString(deadline.toEpochMilli())));
		}
		catch (FenceCallException ex) {
			throw new AmqpException("fence check unavailable: " + ex.kind());
		}
		String decision = !reply.isEmpty() ? text(reply.get(0)) : "";
		if ("accepted".equals(decision)) {
			return;
		}
		if ("deadline_exceeded".equals(decision)) {
			// no decision in time (redelivered later), never a rejection
			throw new AmqpException("fence check unavailable: deadline_exceeded");
		}
		String mark = (reply.size() > 1) ? text(reply.get(1)) : "";
		ConsumeRejection reason = rejectionOf(decision);
		this.rejections.rejected(this.scope, reason, digestText, token, mark, leaseId, traceId);
		throw new FencedMessageRejectedException(reason);
	}

	/** The typed reason of a {@code consume} decision other than {@code accepted}. */
	private static ConsumeRejection rejectionOf(String decision) {
		for (ConsumeRejection rejection : ConsumeRejection.values()) {
			if (rejection.wireName().equals(decision)) {
				return rejection;
			}
		}
		return "rejected".equals(decision) ? ConsumeRejection.TOKEN_BELOW_HIGH_WATER_MARK
				: ConsumeRejection.CORRUPT_RECORD;
	}

	private static long parseToken(@Nullable Object header) {
		try {
			long token;
			if (header instanceof Number number) {
				token = number.longValue();
			}
			else if (header != null) {
				token = Long.parseLong(header.toString());
			}
			else {
				return -1;
			}
			return (token > 0 && token < LeaseRecord.MAX_FENCING_TOKEN) ? token : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/** A header value that is a bounded identifier, else {@code invalid} (headers are untrusted input). */
	private static String identifier(@Nullable Object value) {
		return (value != null && IDENTIFIER.matcher(value.toString()).matches()) ? value.toString() : "invalid";
	}

	private static String safe(@Nullable Object digest) {
		return (digest instanceof String text && DIGEST.matcher(text).matches()) ? text : "invalid";
	}

	private static byte[][] bytes(String... values) {
		byte[][] out = new byte[values.length][];
		for (int i = 0; i < values.length; i++) {
			out[i] = values[i].getBytes(StandardCharsets.UTF_8);
		}
		return out;
	}

	private static String text(@Nullable Object value) {
		return (value instanceof byte[] raw) ? new String(raw, StandardCharsets.UTF_8) : String.valueOf(value);
	}

}
