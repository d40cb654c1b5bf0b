package io.starintel.lease.fence.amqp.internal;

import java.time.Duration;
import java.util.List;

import java.util.ArrayList;

import com.rabbitmq.client.Channel;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.beans.DirectFieldAccessor;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.ConsumeRejection;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedMessageRejectedException;
import io.starintel.lease.core.Reason;
import io.starintel.lease.store.redis.FenceCallException;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.store.redis.FenceFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * The consumer guard without a broker: header validation before Redis, the key layout, and fail-closed behavior.
 */
class FencedListenerAdviceTests {

	private static final String DIGEST = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ";

	private final FenceCalls redis = mock(FenceCalls.class);

	private final ConsumerRejectionRecorder rejections = new ConsumerRejectionRecorder();

	private final ProgramScope scope = ProgramScope.of("tenant-a", "program-a");

	@Test
	void keyUsesTheConsumersProgramTagAndTheMessageDigest() {
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, true, this.rejections);
		assertThat(advice.key(DIGEST))
			.isEqualTo("starintel:target-lease:v1:{" + this.scope.hashTag() + "}:consumed:" + DIGEST);
	}

	@Test
	void unfencedMessagePassesWhenFenceIsNotRequired() throws Throwable {
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, false, this.rejections);
		MethodInvocation invocation = invocation(new Message(new byte[0], new MessageProperties()));
		advice.invoke(invocation);
		verify(invocation).proceed();
		verifyNoInteractions(this.redis);
	}

	@Test
	void malformedDigestIsRejectedWithoutRequeueBeforeTouchingRedis() throws Throwable {
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, true, this.rejections);
		MessageProperties properties = new MessageProperties();
		properties.setHeader(FenceHeaders.LOCK_KEY_DIGEST, "*:injected");
		properties.setHeader(FenceHeaders.TOKEN, 42L);
		MethodInvocation invocation = invocation(new Message(new byte[0], properties));
		assertThatExceptionOfType(AmqpRejectAndDontRequeueException.class).isThrownBy(() -> advice.invoke(invocation));
		verify(invocation, never()).proceed();
		verifyNoInteractions(this.redis);
		assertThat(this.rejections.count()).isEqualTo(1);
	}

	/**
	 * A stamped producer batch (the {@code springBatchFormat} header of Spring AMQP's batch, or the
	 * {@code amqp_batchSize} header its debatched fragments keep) is rejected as {@code batched_message} before Redis:
	 * one stamp never passes a batch. An unfenced batch passes when the fence is not required, like any unfenced
	 * message.
	 */
	@Test
	void aStampedProducerBatchIsRejectedBeforeTouchingRedis() throws Throwable {
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, false,
				this.rejections);
		Message batch = fenced(42L);
		batch.getMessageProperties().setHeader(MessageProperties.SPRING_BATCH_FORMAT,
				MessageProperties.BATCH_FORMAT_LENGTH_HEADER4);
		Message fragment = fenced(42L);
		fragment.getMessageProperties().setHeader(AmqpHeaders.BATCH_SIZE, 2);
		for (Message message : List.of(batch, fragment)) {
			MethodInvocation invocation = invocation(message);
			assertThatExceptionOfType(FencedMessageRejectedException.class)
				.isThrownBy(() -> advice.invoke(invocation))
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(ConsumeRejection.BATCHED_MESSAGE));
			verify(invocation, never()).proceed();
		}
		verifyNoInteractions(this.redis);
		assertThat(this.rejections.count()).isEqualTo(2);
		MessageProperties unfenced = new MessageProperties();
		unfenced.setHeader(MessageProperties.SPRING_BATCH_FORMAT, MessageProperties.BATCH_FORMAT_LENGTH_HEADER4);
		MethodInvocation invocation = invocation(new Message(new byte[0], unfenced));
		advice.invoke(invocation);
		verify(invocation).proceed();
	}

	@Test
	@SuppressWarnings("unchecked")
	void lowerTokenIsRejectedWithoutRequeue() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any()))
			.thenReturn(List.of("rejected", "43"));
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, true, this.rejections);
		MethodInvocation invocation = invocation(fenced(42L));
		assertThatExceptionOfType(AmqpRejectAndDontRequeueException.class).isThrownBy(() -> advice.invoke(invocation));
		verify(invocation, never()).proceed();
	}

	@Test
	@SuppressWarnings("unchecked")
	void acceptedTokenProceeds() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any()))
			.thenReturn(List.of("accepted", "42"));
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, true, this.rejections);
		MethodInvocation invocation = invocation(fenced(42L));
		advice.invoke(invocation);
		verify(invocation).proceed();
	}

	@Test
	@SuppressWarnings("unchecked")
	void redisUnavailableIsNotAnAcceptanceNorADeadLetter() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any()))
			.thenThrow(new FenceCallException(FenceCallException.Kind.NOT_SUBMITTED, Reason.BACKEND_UNREACHABLE, "down"));
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, true, this.rejections);
		MethodInvocation invocation = invocation(fenced(42L));
		assertThatExceptionOfType(AmqpException.class).isThrownBy(() -> advice.invoke(invocation))
			.isNotInstanceOf(AmqpRejectAndDontRequeueException.class);
		verify(invocation, never()).proceed();
	}

	@Test
	@SuppressWarnings("unchecked")
	void withManualAcknowledgementARejectedMessageIsRejectedOnTheChannelByTheFence() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any())).thenReturn(List.of("rejected", "43"));
		MethodInterceptor fence = bound(AcknowledgeMode.MANUAL);
		Channel channel = mock(Channel.class);
		MethodInvocation invocation = invocation(channel, tagged(fenced(42L), 7));
		assertThatExceptionOfType(AmqpRejectAndDontRequeueException.class).isThrownBy(() -> fence.invoke(invocation));
		verify(channel).basicReject(7, false);
		verify(invocation, never()).proceed();
	}

	@Test
	@SuppressWarnings("unchecked")
	void withAutomaticAcknowledgementTheContainerRejectsASingleMessage() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any())).thenReturn(List.of("rejected", "43"));
		MethodInterceptor fence = bound(AcknowledgeMode.AUTO);
		Channel channel = mock(Channel.class);
		MethodInvocation invocation = invocation(channel, tagged(fenced(42L), 7));
		assertThatExceptionOfType(AmqpRejectAndDontRequeueException.class).isThrownBy(() -> fence.invoke(invocation));
		verifyNoInteractions(channel);
	}

	@Test
	@SuppressWarnings("unchecked")
	void aBatchWhoseLastMessageIsAcceptedRejectsTheOthersOneByOneAndLeavesTheAckToTheContainer() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any())).thenReturn(List.of("accepted", "42"),
				List.of("rejected", "43"), List.of("accepted", "43"));
		MethodInterceptor fence = bound(AcknowledgeMode.AUTO);
		Channel channel = mock(Channel.class);
		Message first = tagged(fenced(42L), 1);
		Message stale = tagged(fenced(41L), 2);
		Message last = tagged(fenced(43L), 3);
		MethodInvocation invocation = invocation(channel, new ArrayList<>(List.of(first, stale, last)));
		fence.invoke(invocation);
		verify(channel).basicReject(2, false);
		verify(channel, never()).basicAck(anyLong(), anyBoolean());
		verify(invocation).proceed();
		assertThat((List<Message>) invocation.getArguments()[1]).containsExactly(first, last);
	}

	@Test
	@SuppressWarnings("unchecked")
	void aBatchWhoseLastMessageIsRejectedAcksTheAcceptedOnesAndLeavesTheLastToTheContainersNack() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any())).thenReturn(List.of("accepted", "42"),
				List.of("rejected", "43"), List.of("accepted", "43"), List.of("rejected", "43"));
		MethodInterceptor fence = bound(AcknowledgeMode.AUTO);
		Channel channel = mock(Channel.class);
		MethodInvocation invocation = invocation(channel, new ArrayList<>(List.of(tagged(fenced(42L), 1),
				tagged(fenced(41L), 2), tagged(fenced(43L), 3), tagged(fenced(40L), 4))));
		assertThatExceptionOfType(AmqpRejectAndDontRequeueException.class).isThrownBy(() -> fence.invoke(invocation));
		verify(invocation).proceed();
		verify(channel).basicReject(2, false);
		verify(channel).basicAck(1, false);
		verify(channel).basicAck(3, false);
		verify(channel, never()).basicReject(4, false);
	}

	@Test
	@SuppressWarnings("unchecked")
	void withManualAcknowledgementABatchRejectsItsRejectedMessagesAndPassesTheOthers() throws Throwable {
		when(this.redis.run(eq(FenceFunction.CONSUME), any(), any(), any())).thenReturn(List.of("rejected", "43"),
				List.of("accepted", "43"));
		MethodInterceptor fence = bound(AcknowledgeMode.MANUAL);
		Channel channel = mock(Channel.class);
		Message accepted = tagged(fenced(43L), 2);
		MethodInvocation invocation = invocation(channel, new ArrayList<>(List.of(tagged(fenced(41L), 1), accepted)));
		fence.invoke(invocation);
		verify(channel).basicReject(1, false);
		verify(channel, never()).basicAck(anyLong(), anyBoolean());
		assertThat((List<Message>) invocation.getArguments()[1]).containsExactly(accepted);
	}

	@Test
	void fenceFirstKeepsTheContainersOtherAdviceBehindOneFence() {
		SimpleMessageListenerContainer container = new SimpleMessageListenerContainer();
		MethodInterceptor other = MethodInvocation::proceed;
		FencedListenerAdvice advice = new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, true,
				this.rejections);
		container.setAdviceChain(advice, other);
		advice.fenceFirst(container);
		advice.fenceFirst(container);
		assertThat(advice.isFirstIn(container)).isTrue();
		Advice[] chain = (Advice[]) new DirectFieldAccessor(container).getPropertyValue("adviceChain");
		assertThat(chain).hasSize(2);
		assertThat(chain[1]).isSameAs(other);
	}

	/** The fence as {@code fenceFirst} binds it to a container of the given acknowledge mode. */
	private MethodInterceptor bound(AcknowledgeMode mode) {
		SimpleMessageListenerContainer container = new SimpleMessageListenerContainer();
		container.setAcknowledgeMode(mode);
		new FencedListenerAdvice(this.redis, Duration.ofSeconds(2), this.scope, true, this.rejections)
			.fenceFirst(container);
		return (MethodInterceptor) ((Advice[]) new DirectFieldAccessor(container).getPropertyValue("adviceChain"))[0];
	}

	private static Message tagged(Message message, long deliveryTag) {
		message.getMessageProperties().setDeliveryTag(deliveryTag);
		return message;
	}

	/** An invocation of the container's listener with real, modifiable arguments (channel, data). */
	private static MethodInvocation invocation(Channel channel, Object data) {
		MethodInvocation invocation = mock(MethodInvocation.class);
		Object[] arguments = { channel, data };
		when(invocation.getArguments()).thenReturn(arguments);
		return invocation;
	}

	private static Message fenced(long token) {
		MessageProperties properties = new MessageProperties();
		properties.setHeader(FenceHeaders.LOCK_KEY_DIGEST, DIGEST);
		properties.setHeader(FenceHeaders.TOKEN, token);
		properties.setHeader(FenceHeaders.LEASE_ID, "lease_1");
		return new Message(new byte[0], properties);
	}

	private static MethodInvocation invocation(Message message) {
		MethodInvocation invocation = mock(MethodInvocation.class);
		when(invocation.getArguments()).thenReturn(new Object[] { mock(Channel.class), message });
		return invocation;
	}

}
