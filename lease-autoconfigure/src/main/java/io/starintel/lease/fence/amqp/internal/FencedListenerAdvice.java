package io.starintel.lease.fence.amqp.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.ConsumeRejection;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedMessageRejectedException;
import io.starintel.lease.store.redis.internal.RedisKeys;

/**
 * A listener-container advice (add it to the container's advice chain) that fences consumption: atomically in
 * Redis ({@code consume.lua}) a message is accepted only if its {@link FenceHeaders#TOKEN} is not below the
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
 * the container's default (requeue) applies.
 */
public final class FencedListenerAdvice implements MethodInterceptor {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9._:@-]{1,128}");

	private static final Pattern DIGEST = Pattern.compile("[A-Za-z0-9_-]{43}");

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SCRIPT = new DefaultRedisScript<>(read(), List.class);

	private final StringRedisTemplate redis;

	private final ProgramScope scope;

	private final boolean requireFence;

	private final ConsumerRejectionRecorder rejections;

	/** An advice for consumers of one program. */
	public FencedListenerAdvice(StringRedisTemplate redis, ProgramScope scope, boolean requireFence,
			ConsumerRejectionRecorder rejections) {
		this.redis = redis;
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
		List<?> reply;
		try {
			RedisKeys keys = new RedisKeys(this.scope);
			reply = this.redis.execute(SCRIPT, List.of(key(digestText), keys.fence(digestText),
					keys.lease(digestText), keys.history(digestText)), Long.toString(token), leaseId);
		}
		catch (DataAccessException ex) {
			throw new AmqpException("fence check unavailable: " + ex.getClass().getSimpleName());
		}
		String decision = (reply != null && !reply.isEmpty()) ? String.valueOf(reply.get(0)) : "";
		if ("accepted".equals(decision)) {
			return;
		}
		String mark = (reply != null && reply.size() > 1) ? String.valueOf(reply.get(1)) : "";
		ConsumeRejection reason = rejectionOf(decision);
		this.rejections.rejected(this.scope, reason, digestText, token, mark, leaseId, traceId);
		throw new FencedMessageRejectedException(reason);
	}

	/** The typed reason of a {@code consume.lua} decision other than {@code accepted}. */
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

	private static String read() {
		try (InputStream in = new ClassPathResource("/io/starintel/lease/fence/amqp/consume.lua").getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
