package io.starintel.lease.fence.amqp.internal;

import java.time.Duration;
import java.util.List;

import com.rabbitmq.client.Channel;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.core.Reason;
import io.starintel.lease.store.redis.FenceCallException;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.store.redis.FenceFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
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
