package io.starintel.lease.fence.amqp.internal;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.rabbitmq.client.Channel;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.util.ReflectionUtils;
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
 * the container's default (requeue) applies. A producer batch ({@link FenceHeaders#isProducerBatch}: a
 * {@code BatchingRabbitTemplate}'s delivery, or the fragments a consumer batch debatched from it) that carries fence
 * headers, or any one when {@code requireFence} is set, is rejected ({@link ConsumeRejection#BATCHED_MESSAGE}) without
 * a Redis call: its messages share the headers of whichever thread released it. A call carries a deadline
 * ({@link #DEFAULT_TIMEOUT} unless given) and waits no longer, through the lease store's {@link FenceCalls} (its
 * connections, replica acknowledgement and failover recovery).
 *
 * <p>Put it in a container with {@link #fenceFirst(AbstractMessageListenerContainer)}: first in the chain, and bound
 * to the container, so that a rejected message is dead-lettered whatever the acknowledge mode ({@code MANUAL}: the
 * fence rejects it on the channel itself, the container never does) and a consumer batch is judged message by
 * message (only its rejected messages are dead-lettered, the listener gets the accepted ones).
 */
public final class FencedListenerAdvice implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(FencedListenerAdvice.class);

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

	/**
	 * Fences a delivery as a container with acknowledge mode {@code AUTO} needs it (the container settles every
	 * delivery). Prefer {@link #fenceFirst(AbstractMessageListenerContainer)}, which binds the fence to its container
	 * and so to the container's acknowledge mode.
	 */
	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		return fence(invocation, null);
	}

	/**
	 * Puts this fence first in the container's advice chain (outside retry and any other advice, replacing a fence
	 * already in it), bound to the container: a rejection is settled as the container's acknowledge mode requires
	 * (with {@code MANUAL} the container never rejects on an exception, so the fence rejects the delivery itself). Call
	 * it after the container is configured (after a factory's container customizer) and before it is initialized: the
	 * container builds its listener proxy from the chain once, in {@code afterPropertiesSet()}.
	 * @throws IllegalStateException when the container's advice chain cannot be read (the container is not fenced)
	 */
	public void fenceFirst(AbstractMessageListenerContainer container) {
		List<Advice> chain = new ArrayList<>();
		chain.add(new ContainerFence(this, container));
		for (Advice advice : adviceChain(container)) {
			if (!(advice instanceof FencedListenerAdvice) && !(advice instanceof ContainerFence)) {
				chain.add(advice);
			}
		}
		container.setAdviceChain(chain.toArray(new Advice[0]));
	}

	/**
	 * Whether this fence is first in the container's advice chain, bound to that container (what
	 * {@link #fenceFirst(AbstractMessageListenerContainer)} leaves).
	 */
	public boolean isFirstIn(AbstractMessageListenerContainer container) {
		Advice[] chain = adviceChain(container);
		return chain.length > 0 && chain[0] instanceof ContainerFence fence && fence.advice == this
				&& fence.container == container;
	}

	/**
	 * The container's advice chain: {@code getAdviceChain()} is protected (the chain is only set from outside), so it
	 * is read reflectively; without it a customizer's chain could not be kept behind the fence.
	 */
	private static Advice[] adviceChain(AbstractMessageListenerContainer container) {
		Method getter = ReflectionUtils.findMethod(AbstractMessageListenerContainer.class, "getAdviceChain");
		if (getter == null) {
			throw new IllegalStateException("Cannot read the advice chain of listener container "
					+ container.getClass().getName() + ": the consumer fence cannot be put first in it");
		}
		ReflectionUtils.makeAccessible(getter);
		Object chain = ReflectionUtils.invokeMethod(getter, container);
		return (chain instanceof Advice[] advices) ? advices : new Advice[0];
	}

	/**
	 * Judges the delivery of one invocation of the container's listener (arguments: the consumer's channel, then a
	 * message or a consumer batch). A single rejected message throws {@link FencedMessageRejectedException}; with
	 * {@code MANUAL} acknowledgement it is first rejected on the channel ({@code requeue=false}). A batch is judged
	 * message by message: see {@link #fenceBatch}.
	 */
	private @Nullable Object fence(MethodInvocation invocation, @Nullable AbstractMessageListenerContainer container)
			throws Throwable {
		Object[] arguments = invocation.getArguments();
		Channel channel = (arguments.length > 0 && arguments[0] instanceof Channel consumer) ? consumer : null;
		AcknowledgeMode mode = (container != null) ? container.getAcknowledgeMode() : AcknowledgeMode.AUTO;
		boolean transacted = container != null && container.isChannelTransacted();
		for (int i = 0; i < arguments.length; i++) {
			if (arguments[i] instanceof Message message) {
				try {
					check(message);
				}
				catch (FencedMessageRejectedException ex) {
					if (mode.isManual()) {
						settle(channel, transacted, List.of(message), false);
					}
					throw ex;
				}
			}
			else if (arguments[i] instanceof List<?> batch && !batch.isEmpty()
					&& batch.stream().allMatch(Message.class::isInstance)) {
				@SuppressWarnings("unchecked")
				List<Message> messages = (List<Message>) batch;
				return fenceBatch(invocation, i, messages, channel, mode, transacted);
			}
		}
		return invocation.proceed();
	}

	/**
	 * A consumer batch (one delivery tag per message): each message is judged; the listener gets the accepted ones
	 * and only the rejected ones are dead-lettered (rejected with {@code requeue=false}). With {@code AUTO} the
	 * container then acknowledges the batch with one {@code basicAck(lastTag, multiple=true)} (or, when the listener
	 * throws, one {@code basicNack(lastTag, multiple=true, …)}), so the fence rejects every rejected message itself
	 * except the one with the batch's last tag, which must stay unsettled for that call: when that message is the
	 * rejected one, the fence acknowledges the accepted messages itself after the listener returned and throws the
	 * rejection, and the container's {@code basicNack(lastTag, multiple=true, requeue=false)} dead-letters it. When no
	 * message is accepted, the rejection is thrown for the whole batch; so it is when the batch holds several messages of
	 * one delivery tag (fragments of a producer batch, which cannot be settled apart).
	 */
	private @Nullable Object fenceBatch(MethodInvocation invocation, int index, List<Message> batch,
			@Nullable Channel channel, AcknowledgeMode mode, boolean transacted) throws Throwable {
		List<Message> accepted = new ArrayList<>();
		List<Message> rejected = new ArrayList<>();
		FencedMessageRejectedException rejection = null;
		for (Message message : batch) {
			try {
				check(message);
				accepted.add(message);
			}
			catch (FencedMessageRejectedException ex) {
				rejected.add(message);
				rejection = (rejection != null) ? rejection : ex;
			}
		}
		if (rejection == null) {
			return invocation.proceed();
		}
		Set<Long> tags = new HashSet<>();
		boolean tagPerMessage = batch.stream().allMatch((m) -> tags.add(m.getMessageProperties().getDeliveryTag()));
		if (!tagPerMessage || accepted.isEmpty()) {
			if (mode.isManual()) {
				settle(channel, transacted, distinctTags(batch), false);
			}
			throw rejection;
		}
		invocation.getArguments()[index] = new ArrayList<>(accepted);
		if (mode.isManual()) {
			settle(channel, transacted, rejected, false);
			return invocation.proceed();
		}
		if (mode.isAutoAck()) {
			// NONE: the broker settled every delivery already; the rejected ones are only kept from the listener
			return invocation.proceed();
		}
		long lastTag = batch.stream().mapToLong((m) -> m.getMessageProperties().getDeliveryTag()).max().getAsLong();
		boolean lastRejected = rejected.stream().anyMatch((m) -> m.getMessageProperties().getDeliveryTag() == lastTag);
		settle(channel, transacted,
				rejected.stream().filter((m) -> m.getMessageProperties().getDeliveryTag() != lastTag).toList(), false);
		Object result = invocation.proceed();
		if (!lastRejected) {
			return result;
		}
		settle(channel, transacted, accepted, true);
		throw rejection;
	}

	private static List<Message> distinctTags(List<Message> messages) {
		Set<Long> seen = new HashSet<>();
		return messages.stream().filter((m) -> seen.add(m.getMessageProperties().getDeliveryTag())).toList();
	}

	/**
	 * Acknowledges ({@code ack}) or rejects without requeue each message, one delivery tag at a time, on the
	 * consumer's channel (committed when the container's channel is transacted, so that the container's rollback of
	 * a failed delivery does not undo it). A failure is logged: the channel is then closed and the broker redelivers
	 * the unsettled messages, judged again.
	 */
	private static void settle(@Nullable Channel channel, boolean transacted, List<Message> messages, boolean ack) {
		if (messages.isEmpty()) {
			return;
		}
		if (channel == null) {
			logger.error("Fenced delivery not settled: no channel in the listener invocation");
			return;
		}
		try {
			for (Message message : messages) {
				long tag = message.getMessageProperties().getDeliveryTag();
				if (ack) {
					channel.basicAck(tag, false);
				}
				else {
					channel.basicReject(tag, false);
				}
			}
			if (transacted) {
				channel.txCommit();
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.error("Fenced delivery not settled ({}): the broker redelivers it when the channel closes",
					ex.getClass().getSimpleName());
		}
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
		if (FenceHeaders.isProducerBatch(message.getMessageProperties())) {
			// contract: each fenced message is authorized as its own publish; one stamp never passes a whole batch
			this.rejections.rejected(this.scope, ConsumeRejection.BATCHED_MESSAGE, safe(digest), token, "", leaseId,
					traceId);
			throw new FencedMessageRejectedException(ConsumeRejection.BATCHED_MESSAGE);
		}
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

	/** This fence bound to one container (its acknowledge mode, its transacted channel). */
	private static final class ContainerFence implements MethodInterceptor {

		private final FencedListenerAdvice advice;

		private final AbstractMessageListenerContainer container;

		ContainerFence(FencedListenerAdvice advice, AbstractMessageListenerContainer container) {
			this.advice = advice;
			this.container = container;
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			return this.advice.fence(invocation, this.container);
		}

	}

}
