package io.starintel.lease.fence.amqp;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

import com.rabbitmq.client.Channel;

import io.starintel.lease.core.Reason;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.context.LeaseContext;

/**
 * A {@link RabbitTemplate} whose publishes are fenced whenever a {@link LeaseContext} is bound: each publish is
 * authorized first ({@link FenceGuard}, one backend-time check), carries the {@link FenceHeaders}, is
 * {@code mandatory}, and waits for the publisher confirm within the authorization's deadline (a returned
 * message is {@link FenceOutcome#UNROUTABLE}, a nack or a transport error a typed failure, no confirm in time
 * {@link FenceOutcome#OUTCOME_UNKNOWN}). Without a context, a publish to a fenced destination (a listed exchange,
 * or a listed queue on the default exchange) is refused; other publishes behave like a plain template.
 *
 * <p>Contract: Rabbit publication that makes an exclusive result externally visible is fenced; a refused publish
 * never reaches the broker. Needs a connection factory with correlated publisher confirms and returns
 * ({@code spring.rabbitmq.publisher-confirm-type=correlated}, {@code spring.rabbitmq.publisher-returns=true});
 * without them every fenced publish is refused ({@code lease_backend_unavailable}) rather than assumed delivered.
 * {@code sendAndReceive} is refused under a context (a reply cannot be fenced here).
 *
 * <p>A {@link CorrelationData} is for one publish: its future completes with that publish's confirm, which is what a
 * fenced {@code send} waits for. Under a context, a {@code CorrelationData} whose future is already complete, that
 * carries a returned message, or that was given to this template before (with or without a context) is refused
 * ({@link FenceOutcome#INVALID_REQUEST}, nothing authorized or sent): waiting on it would report the earlier publish's
 * confirm as this one's. A message marked as a producer batch ({@link FenceHeaders#isProducerBatch}) is refused the
 * same way: it cannot be fenced per message.
 *
 * <p>Every other path on which the template publishes (the reply of {@code receiveAndReply}, the request of an
 * {@code AsyncRabbitTemplate} over this template, {@link #doSend} called inside {@code execute}) is fenced as
 * {@link FencingMessagePostProcessor} fences a plain template: authorized and stamped under a context, refused
 * without one on a fenced destination, a refusal thrown as {@link FencedPublishRejectedException} before anything is
 * sent; only the publisher-confirm wait is {@code send}'s alone. A raw {@code Channel.basicPublish} inside
 * {@code execute} is not a template publish and is not fenced.
 */
public class FencedRabbitTemplate extends RabbitTemplate {

	private final FenceGuard guard;

	private final Set<String> fencedExchanges;

	private final Set<String> fencedQueues;

	/** How the publishes that do not go through {@link #send} are fenced (see {@link #doSend}). */
	private final FencingMessagePostProcessor otherPublishes;

	/**
	 * Every {@link CorrelationData} given to {@link #send} (by identity unless a subclass redefines equality; weak, so
	 * that a dropped one is forgotten): a fenced send refuses one seen before.
	 */
	private final Map<CorrelationData, Boolean> givenCorrelations = Collections.synchronizedMap(new WeakHashMap<>());

	/** The message this thread's {@link #send} authorized, stamped and is publishing: {@link #doSend} passes it on. */
	private final ThreadLocal<@Nullable Message> authorizedSend = new ThreadLocal<>();

	/** A fenced template on which no destination requires a context (publishes under a context are fenced). */
	public FencedRabbitTemplate(ConnectionFactory connectionFactory, FenceGuard guard) {
		this(connectionFactory, guard, Set.of(), Set.of());
	}

	/**
	 * A fenced template on which a publish without a context is refused ({@code no_lease_context}) when it goes to
	 * one of {@code fencedExchanges}, or to one of {@code fencedQueues} through the default exchange.
	 */
	public FencedRabbitTemplate(ConnectionFactory connectionFactory, FenceGuard guard,
			Collection<String> fencedExchanges, Collection<String> fencedQueues) {
		super(connectionFactory);
		this.guard = guard;
		this.fencedExchanges = Set.copyOf(fencedExchanges);
		this.fencedQueues = Set.copyOf(fencedQueues);
		this.otherPublishes = new FencingMessagePostProcessor(guard, this.fencedExchanges, this.fencedQueues);
		setMandatory(true);
	}

	/**
	 * Publishes under the bound lease context and returns the typed outcome (never throws for a refusal). Without
	 * a context the answer is {@link FenceOutcome#NO_LEASE_CONTEXT} and nothing is sent; a producer batch is
	 * {@link FenceOutcome#INVALID_REQUEST}.
	 */
	public FencedWriteResult trySend(String exchange, String routingKey, Message message) {
		LeaseContext context = LeaseContext.currentOrNull();
		if (context == null) {
			return this.guard.authorizeCurrent().toWriteResult();
		}
		return fencedSend(context, exchange, routingKey, message, null);
	}

	@Override
	public void send(String exchange, String routingKey, Message message, @Nullable CorrelationData correlationData)
			throws AmqpException {
		LeaseContext context = LeaseContext.currentOrNull();
		if (context == null) {
			if (requiresContext(exchange, routingKey)) {
				throw new FencedWriteRejectedException(this.guard.authorizeCurrent().toWriteResult());
			}
			if (correlationData != null) {
				this.givenCorrelations.put(correlationData, Boolean.TRUE);
			}
			super.send(exchange, routingKey, message, correlationData);
			return;
		}
		FencedWriteResult result = fencedSend(context, exchange, routingKey, message, correlationData);
		if (!result.isAccepted()) {
			throw new FencedWriteRejectedException(result);
		}
	}

	@Override
	protected @Nullable Message doSendAndReceive(String exchange, String routingKey, Message message,
			@Nullable CorrelationData correlationData) {
		if (LeaseContext.currentOrNull() != null || requiresContext(exchange, routingKey)) {
			throw new UnsupportedOperationException("sendAndReceive is not a fenced publish path");
		}
		return super.doSendAndReceive(exchange, routingKey, message, correlationData);
	}

	/**
	 * Every publish of the template ends here: the one {@link #send} has just authorized and stamped goes out as it
	 * is; any other (a {@code receiveAndReply} reply, an {@code AsyncRabbitTemplate} request, a direct call) is first
	 * fenced by {@link FencingMessagePostProcessor}'s rule, which throws {@link FencedPublishRejectedException} (an
	 * {@code AmqpException}, rethrown by the template as it is) for a refused one. Without a context and on a
	 * destination that is not fenced, nothing changes.
	 */
	@Override
	public void doSend(Channel channel, @Nullable String exchange, @Nullable String routingKey, Message message,
			boolean mandatory, @Nullable CorrelationData correlationData) {
		Message toSend = (this.authorizedSend.get() == message) ? message
				: this.otherPublishes.postProcessMessage(message, correlationData, exchange, routingKey);
		super.doSend(channel, exchange, routingKey, toSend, mandatory, correlationData);
	}

	/** Whether a publish to this destination is refused without a lease context (Spring AMQP may pass nulls). */
	private boolean requiresContext(@Nullable String exchange, @Nullable String routingKey) {
		String name = (exchange != null) ? exchange : "";
		return this.fencedExchanges.contains(name)
				|| (name.isEmpty() && this.fencedQueues.contains((routingKey != null) ? routingKey : ""));
	}

	/**
	 * Claims the correlation for this publish: whether its future is not complete, it carries no returned message, and
	 * this template was not given it before (atomic: of two concurrent sends with one correlation, one is refused).
	 */
	private boolean claim(CorrelationData correlation) {
		boolean unused = !correlation.getFuture().isDone() && correlation.getReturned() == null;
		return unused && this.givenCorrelations.putIfAbsent(correlation, Boolean.TRUE) == null;
	}

	/** Forgets a claimed correlation that carried nothing (the publish was refused before it was sent). */
	private void unclaim(@Nullable CorrelationData correlation) {
		if (correlation != null) {
			this.givenCorrelations.remove(correlation);
		}
	}

	private FencedWriteResult fencedSend(LeaseContext context, String exchange, String routingKey, Message message,
			@Nullable CorrelationData userCorrelation) {
		if (FenceHeaders.isProducerBatch(message.getMessageProperties())) {
			return FencingMessagePostProcessor.batchRefused();
		}
		if (userCorrelation != null && !claim(userCorrelation)) {
			return FencedWriteResult.refused(FenceOutcome.INVALID_REQUEST, Reason.NONE, Identifiers.generate("corr"),
					"the CorrelationData was already used for a publish: nothing sent", null);
		}
		FenceDecision decision = this.guard.authorize(context);
		FencedWriteResult authorized = decision.toWriteResult();
		if (!decision.isAuthorized()) {
			unclaim(userCorrelation);
			return authorized;
		}
		if (!getConnectionFactory().isPublisherConfirms() || !getConnectionFactory().isPublisherReturns()) {
			unclaim(userCorrelation);
			return authorized.with(FenceOutcome.BACKEND_UNAVAILABLE, Reason.NONE,
					"publisher confirms and returns are required for fenced publishes");
		}
		FenceHeaders.apply(message.getMessageProperties(), decision.requireStamp());
		CorrelationData correlation = (userCorrelation != null) ? userCorrelation
				: new CorrelationData(decision.correlationId());
		this.authorizedSend.set(message);
		try {
			super.send(exchange, routingKey, message, correlation);
		}
		catch (AmqpException ex) {
			return authorized.with(FenceOutcome.OUTCOME_UNKNOWN, Reason.NONE, ex.getClass().getSimpleName());
		}
		finally {
			this.authorizedSend.remove();
		}
		long waitMs = Math.max(1, Duration.between(Instant.now(), decision.deadlineAt()).toMillis());
		CorrelationData.Confirm confirm;
		try {
			confirm = correlation.getFuture().get(waitMs, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException | ExecutionException ex) {
			return authorized.with(FenceOutcome.OUTCOME_UNKNOWN, Reason.REPLY_LOST, "no publisher confirm in time");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return authorized.with(FenceOutcome.OUTCOME_UNKNOWN, Reason.REPLY_LOST, "interrupted");
		}
		if (correlation.getReturned() != null) {
			return authorized.with(FenceOutcome.UNROUTABLE, Reason.NONE, "returned: no route");
		}
		if (!confirm.ack()) {
			return authorized.with(FenceOutcome.BACKEND_UNAVAILABLE, Reason.NONE, "nacked by the broker");
		}
		return authorized;
	}

}
