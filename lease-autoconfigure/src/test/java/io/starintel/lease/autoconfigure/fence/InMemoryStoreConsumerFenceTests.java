package io.starintel.lease.autoconfigure.fence;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.aopalliance.aop.Advice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With the in-memory lease store the AMQP consumer fence is not installed, even when the consumer's program and
 * fenced queues are configured and the application configures a Redis (here one that does not answer): its check
 * reads the publishers' leases in the Redis store, where an in-memory store keeps none, so it would reject every
 * genuine message as forged. Start-up says that the fenced queues are not checked on the consumer side.
 */
@ExtendWith(OutputCaptureExtension.class)
class InMemoryStoreConsumerFenceTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"t-consume", "usernamegen", "default", null);

	private static final LeaseOwner OWNER = new LeaseOwner("prn_test", "c", "k", "i");

	private static final String NOT_CHECKED = "the lease store is the in-memory store: no consumer fence is installed, "
			+ "so fenced queues [results.q] are not checked on the consumer side";

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class, FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class,
				RabbitAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "spring.data.redis.url=redis://127.0.0.1:1",
				"starintel.lease.fence.amqp.fenced-queues=results.q",
				"spring.rabbitmq.listener.simple.auto-startup=false")
		.withBean(Listening.class);

	private final ApplicationContextRunner runner = this.application.withPropertyValues(
			"starintel.lease.fence.amqp.consumer.tenant-id=tenant-main",
			"starintel.lease.fence.amqp.consumer.program-id=program-a");

	@Test
	void withTheInMemoryStoreThereIsNoConsumerFenceAndStartUpSaysSo(CapturedOutput output) {
		this.runner.withPropertyValues("starintel.lease.store=memory").run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(StringRedisTemplate.class)
				.hasSingleBean(InMemoryLeaseStore.class)
				.hasSingleBean(FencedRabbitTemplate.class)
				.doesNotHaveBean(FencedListenerAdvice.class);
			assertListenerContainersAreNotFenced(context);
			assertThat(output).contains(NOT_CHECKED);
		});
	}

	@Test
	void anInMemoryStoreDeclaredAsLeaseStoreGetsNoConsumerFenceEither(CapturedOutput output) {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeanProvider(FencedListenerAdvice.class).getIfAvailable()).isNull();
			assertListenerContainersAreNotFenced(context);
			assertThat(output).contains(NOT_CHECKED);
		});
	}

	@Test
	void withoutTheConsumerProgramNothingIsSaid(CapturedOutput output) {
		this.application.withPropertyValues("starintel.lease.store=memory").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(FencedListenerAdvice.class);
			assertThat(output).doesNotContain("no consumer fence is installed");
		});
	}

	/**
	 * What the probe saw: a message published under a valid in-memory lease was rejected by a consumer fence that
	 * looked for the lease in Redis. Against the real RabbitMQ (127.0.0.1:5672 guest/guest, or
	 * {@code -Dstarintel.rabbit.host}/{@code -Dstarintel.rabbit.port}); the configured Redis does not answer.
	 */
	@Test
	void aGenuineFencedMessageOfAnInMemoryLeaseReachesTheListener() {
		String queue = "starintel-in-memory-consumer-" + UUID.randomUUID().toString().substring(0, 8);
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class, FenceAutoConfiguration.class,
					FenceAmqpAutoConfiguration.class, RabbitAutoConfiguration.class))
			.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
					"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test",
					"spring.data.redis.url=redis://127.0.0.1:1",
					"starintel.lease.fence.amqp.consumer.tenant-id=tenant-main",
					"starintel.lease.fence.amqp.consumer.program-id=program-a",
					"starintel.lease.fence.amqp.fenced-queues=" + queue, "test.queue=" + queue,
					"spring.rabbitmq.host=" + System.getProperty("starintel.rabbit.host", "127.0.0.1"),
					"spring.rabbitmq.port=" + System.getProperty("starintel.rabbit.port", "5672"),
					"spring.rabbitmq.username=guest", "spring.rabbitmq.password=guest",
					"spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true")
			.withBean(Received.class)
			.withBean(Consuming.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeaseService service = context.getBean(LeaseService.class);
				LeaseResult acquired = service.acquire(AcquireRequest.builder(IDENTITY, OWNER)
					.ttl(Duration.ofSeconds(30))
					.maximumLifetime(Duration.ofMinutes(5))
					.build(service.newId(), service.deadline()));
				assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
				FencedRabbitTemplate template = context.getBean(FencedRabbitTemplate.class);
				try (LeaseContext.Scope scope = LeaseContext.bind(new LeaseContext(acquired.lease()))) {
					assertThat(template.trySend("", queue, new Message("genuine".getBytes(StandardCharsets.UTF_8)))
						.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
				}
				List<String> bodies = context.getBean(Received.class).bodies;
				await().atMost(Duration.ofSeconds(15)).until(() -> !bodies.isEmpty());
				assertThat(bodies).containsExactly("genuine");
			});
	}

	/** Neither the factory (not wrapped) nor the container of the {@code @RabbitListener} carries a fence. */
	private static void assertListenerContainersAreNotFenced(AssertableApplicationContext context) {
		SimpleRabbitListenerContainerFactory factory = context.getBean(SimpleRabbitListenerContainerFactory.class);
		assertThat(AopUtils.isAopProxy(factory)).isFalse();
		assertThat(context.getBean(RabbitListenerEndpointRegistry.class).getListenerContainers()).singleElement()
			.satisfies((container) -> assertThat(adviceChain((AbstractMessageListenerContainer) container))
				.noneMatch(FencedListenerAdvice.class::isInstance));
	}

	private static List<Advice> adviceChain(AbstractMessageListenerContainer container) {
		Advice[] chain = (Advice[]) new DirectFieldAccessor(container).getPropertyValue("adviceChain");
		return (chain != null) ? Arrays.asList(chain) : List.of();
	}

	static class Received {

		final List<String> bodies = new CopyOnWriteArrayList<>();

	}

	static class Consuming {

		private final Received received;

		Consuming(Received received) {
			this.received = received;
		}

		@RabbitListener(queuesToDeclare = @Queue(name = "${test.queue}", durable = "false", autoDelete = "true"))
		void onMessage(Message message) {
			this.received.bodies.add(new String(message.getBody(), StandardCharsets.UTF_8));
		}

	}

	static class Listening {

		@RabbitListener(queues = "results.q")
		void onMessage(String body) {
		}

	}

}
