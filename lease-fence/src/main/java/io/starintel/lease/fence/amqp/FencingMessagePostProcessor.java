package io.starintel.lease.fence.amqp;

import java.util.Collection;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Correlation;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessagePostProcessor;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceGuard;

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
 */
public final class FencingMessagePostProcessor implements MessagePostProcessor {

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
		FenceDecision decision = this.guard.authorize(context);
		if (!decision.isAuthorized()) {
			throw new FencedPublishRejectedException(decision.toWriteResult());
		}
		FenceHeaders.apply(message.getMessageProperties(), decision.requireStamp());
		return message;
	}

	/** Whether a publish to this destination is refused without a lease context (Spring AMQP may pass nulls). */
	private boolean requiresContext(@Nullable String exchange, @Nullable String routingKey) {
		String name = (exchange != null) ? exchange : "";
		return this.fencedExchanges.contains(name)
				|| (name.isEmpty() && this.fencedQueues.contains((routingKey != null) ? routingKey : ""));
	}

}
