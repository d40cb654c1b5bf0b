package io.starintel.lease.it.fence;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;

import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedMessageRejectedException;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.store.redis.FenceCalls;
import io.starintel.lease.test.FaultProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * The AMQP consume fence's check against real Redis behind a proxy that stops forwarding: it answers within its
 * deadline (500 ms here) with "no decision" (an {@link AmqpException}: the container requeues), never a wait for the
 * client timeout and never a rejection of the message as stale or forged.
 */
class ConsumeFenceDeadlineTests {

	FenceFixture fixture;

	@BeforeEach
	void setUp() {
		this.fixture = new FenceFixture();
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aConsumeCheckRedisDoesNotAnswerEndsAtItsDeadlineWithoutARejection() throws Throwable {
		URI uri = RedisServers.uri();
		LeaseContext a = this.fixture.acquire(this.fixture.identity("consume-deadline"), "alice", 30_000);
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				FencedListenerAdvice advice = new FencedListenerAdvice(FenceCalls.create(proxied, "starintel-lease"),
						Duration.ofMillis(500), ProgramScope.of(this.fixture.tenant, this.fixture.program), true,
						new ConsumerRejectionRecorder());
				// the advice's connection, opened while Redis answers: the first delivery is accepted
				advice.invoke(invocation(fenced(a)));
				proxy.pause(true);
				long started = System.nanoTime();
				Throwable failure = catchThrowable(() -> advice.invoke(invocation(fenced(a))));
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				assertThat(failure).isInstanceOf(AmqpException.class)
					.isNotInstanceOf(FencedMessageRejectedException.class);
				assertThat(took).as("bounded by the 500 ms deadline").isLessThan(Duration.ofSeconds(3));
				proxy.pause(false);
			}
			finally {
				proxied.destroy();
			}
		}
	}

	private static Message fenced(LeaseContext lease) {
		MessageProperties properties = new MessageProperties();
		properties.setHeader(FenceHeaders.TOKEN, lease.fencingToken());
		properties.setHeader(FenceHeaders.LOCK_KEY_DIGEST, lease.identity().keyDigest());
		properties.setHeader(FenceHeaders.LEASE_ID, lease.leaseId());
		return new Message(new byte[0], properties);
	}

	private static MethodInvocation invocation(Message message) {
		MethodInvocation invocation = mock(MethodInvocation.class);
		when(invocation.getArguments()).thenReturn(new Object[] { message });
		return invocation;
	}

}
