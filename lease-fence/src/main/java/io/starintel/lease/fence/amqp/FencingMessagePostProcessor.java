package io.starintel.lease.fence.amqp;

import java.util.Collection;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Correlation;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessagePostProcessor;
import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;

/**
 * Fences the publishes of a plain {@code RabbitTemplate} (one the application declares itself) as a before-publish
 * post-processor ({@code template.addBeforePublishPostProcessors(...)}; the starter adds it to every
 * {@code RabbitTemplate} bean that is not a {@link FencedRabbitTemplate}). Under a bound {@link LeaseContext} each
 * publish is authorized first ({@link FenceGuard}, one backend-time check) and carries the {@link FenceHeaders}; a
 * refused one throws {@link FencedPublishRejectedException} and is not sent. Without a context a publish to a fenced
 * destination (a listed exchange, or a listed queue on the default exchange) is refused ({@code no_lease_context});
 * other publishes pass unchanged.
 *
 * <p>Contract: Rabbit publication that makes an exclusive result externally visible is fenced; lower tokens are
 * rejected at consumption. Unlike {@link FencedRabbitTemplate} it does not wait for the publisher confirm: the
 * template's own confirm and return settings apply, and a delivery lost after the authorization is not reported.
 *
 * <p>Not for a {@link BatchingRabbitTemplate}: its {@code send} only buffers, and the batch is published (and this
 * post-processor called) by whichever thread releases it, a later sender of any lease, {@code flush()} or the
 * template's scheduler; stamping it there would put that thread's lease on another holder's messages. So under a
 * context a publish released by a {@code BatchingRabbitTemplate} (its {@code send} or flush is on the call stack, which
 * also catches a batch of one message, released unmarked), or a message marked as a producer batch
 * ({@link FenceHeaders#isProducerBatch}), is refused ({@link FenceOutcome#INVALID_REQUEST}) before it is authorized or
 * sent; without a context the rules above apply. Contract: every fenced message is authorized as its own publish.
 */
public final class FencingMessagePostProcessor implements MessagePostProcessor {

	private static final StackWalker STACK = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

	private final FenceGuard guard;

	private final Set<String> fencedExchanges;

	private final Set<String> fencedQueues;

	/**
	 * A post-processor refusing publishes without a context to {@code fencedExchanges}, or to {@code fencedQueues}
	 * through the default exchange.
	 */
	public FencingMessagePostProcessor(FenceGuard guard, Collection<String> fencedExchanges,
			Collection<String> fencedQueues) {
		this.guard = guard;
		this.fencedExchanges = Set.copyOf(fencedExchanges);
		this.fencedQueues = Set.copyOf(fencedQueues);
	}

	@Override
	public Message postProcessMessage(Message message) throws AmqpException {
		return fence(message, null, null);
	}

	@Override
	public Message postProcessMessage(Message message, @Nullable Correlation correlation, @Nullable String exchange,
			@Nullable String routingKey) {
		return fence(message, exchange, routingKey);
	}

	private Message fence(Message message, @Nullable String exchange, @Nullable String routingKey) {
		LeaseContext context = LeaseContext.currentOrNull();
		if (context == null) {
			if (requiresContext(exchange, routingKey)) {
				throw new FencedPublishRejectedException(this.guard.authorizeCurrent().toWriteResult());
			}
			return message;
		}
		if (FenceHeaders.isProducerBatch(message.getMessageProperties()) || releasedByBatchingTemplate()) {
			throw new FencedPublishRejectedException(batchRefused());
		}
		FenceDecision decision = this.guard.authorize(context);
		if (!decision.isAuthorized()) {
			throw new FencedPublishRejectedException(decision.toWriteResult());
		}
		FenceHeaders.apply(message.getMessageProperties(), decision.requireStamp());
		return message;
	}

	/**
	 * The refusal of a batched publish: {@link FenceOutcome#INVALID_REQUEST}, nothing authorized, stamped or sent (the
	 * buffered messages of the batch are dropped with it).
	 */
	static FencedWriteResult batchRefused() {
		return FencedWriteResult.refused(FenceOutcome.INVALID_REQUEST, Reason.NONE, Identifiers.generate("corr"),
				"a batched publish cannot be fenced per message: nothing sent", null);
	}

	/**
	 * Whether this publish is released by a {@link BatchingRabbitTemplate}: its {@code send}, {@code flush()} or
	 * scheduled release is on this thread's stack. A batch of one message is released unmarked, so the headers alone
	 * cannot tell.
	 */
	private static boolean releasedByBatchingTemplate() {
		return STACK.walk((frames) -> frames
			.anyMatch((frame) -> BatchingRabbitTemplate.class.isAssignableFrom(frame.getDeclaringClass())));
	}

	/** Whether a publish to this destination is refused without a lease context (Spring AMQP may pass nulls). */
	private boolean requiresContext(@Nullable String exchange, @Nullable String routingKey) {
		String name = (exchange != null) ? exchange : "";
		return this.fencedExchanges.contains(name)
				|| (name.isEmpty() && this.fencedQueues.contains((routingKey != null) ? routingKey : ""));
	}

}
