package io.starintel.lease.autoconfigure.fence;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.ConsumeRejection;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.fence.amqp.internal.MicrometerFenceRejectionMeter;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.ContainerCustomizer;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mockito.Mockito.mock;

class FenceAmqpAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class, RabbitAutoConfiguration.class));

	@Test
	void whenLeaseStoreThenApplicationRabbitTemplateIsFencedAndMandatory() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new).run((context) -> {
			assertThat(context).hasSingleBean(RabbitOperations.class);
			RabbitTemplate template = context.getBean(RabbitTemplate.class);
			assertThat(template).isInstanceOf(FencedRabbitTemplate.class);
			assertThat(template.isMandatoryFor(new org.springframework.amqp.core.Message(new byte[0]))).isTrue();
		});
	}

	@Test
	void whenMeterRegistryAndAuditSinksThenRejectionsAreCountedAndAudited() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		List<AuditEvent> events = new ArrayList<>();
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(MeterRegistry.class, () -> registry)
			.withBean(AuditSink.class, () -> events::add)
			.run((context) -> {
				context.getBean(ConsumerRejectionRecorder.class)
					.rejected(ProgramScope.of("t", "p"), ConsumeRejection.FORGED_TOKEN_ABOVE_ISSUED_COUNTER,
							"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ", 42, "", "lease_1", "trace_1");
				assertThat(registry.get(MicrometerFenceRejectionMeter.COUNTER)
					.tag("reason", "forged_token_above_issued_counter")
					.tag("forged", "true")
					.counter()
					.count()).isEqualTo(1.0);
				assertThat(events).singleElement()
					.satisfies((event) -> assertThat(event.eventType()).isEqualTo(AuditEventType.COMMIT_REJECTED));
			});
	}

	@Test
	void whenTheAuditPipelineExistsThenARejectionNeverWaitsOnASink() {
		CountDownLatch sinkHeld = new CountDownLatch(1);
		List<AuditEvent> events = new CopyOnWriteArrayList<>();
		AuditSink blocking = (event) -> {
			try {
				sinkHeld.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			events.add(event);
		};
		this.runner.withConfiguration(AutoConfigurations.of(LeaseAuditAutoConfiguration.class))
			.withPropertyValues("starintel.lease.tenant=t", "starintel.lease.program=p",
					"starintel.lease.owner.service-principal=prn_test")
			.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(AuditSink.class, () -> blocking)
			.run((context) -> {
				ConsumerRejectionRecorder recorder = context.getBean(ConsumerRejectionRecorder.class);
				// synchronous delivery would park this thread on the latch, which only the test itself counts down
				assertTimeoutPreemptively(Duration.ofSeconds(10),
						() -> recorder.rejected(ProgramScope.of("t", "p"), ConsumeRejection.TOKEN_BELOW_HIGH_WATER_MARK,
								"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ", 42, "", "lease_1", "trace_1"));
				assertThat(events).isEmpty();
				sinkHeld.countDown();
				await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
				assertThat(events).singleElement()
					.satisfies((event) -> assertThat(event.eventType()).isEqualTo(AuditEventType.COMMIT_REJECTED));
			});
	}

	@Test
	void whenAPublishIsRefusedThenItIsCountedAtThePublishEnforcementPoint() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(MeterRegistry.class, () -> registry)
			.run((context) -> {
				FencedRabbitTemplate template = context.getBean(FencedRabbitTemplate.class);
				assertThat(template.trySend("results", "r", new org.springframework.amqp.core.Message(new byte[0]))
					.outcome()).isEqualTo(io.starintel.lease.fence.FenceOutcome.NO_LEASE_CONTEXT);
				assertThat(registry.get(MicrometerFenceRejectionMeter.COUNTER)
					.tag("enforcement_point", "amqp_publish")
					.tag("reason", "no_lease_context")
					.tag("forged", "false")
					.counter()
					.count()).isEqualTo(1.0);
			});
	}

	@Test
	void whenMicrometerIsMissingThenRejectionsAreStillRecorded() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(ConsumerRejectionRecorder.class)
				.doesNotHaveBean(ConsumerRejectionRecorder.Meter.class));
	}

	@Test
	void whenNoLeaseStoreThenBootsPlainRabbitTemplate() {
		this.runner.run((context) -> assertThat(context.getBean(RabbitTemplate.class))
			.isNotInstanceOf(FencedRabbitTemplate.class));
	}

	@Test
	void whenUserRabbitOperationsThenAutoConfigurationBacksOff() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean("myTemplate", RabbitTemplate.class, () -> new RabbitTemplate(new CachingConnectionFactory()))
			.run((context) -> {
				RabbitTemplate template = context.getBean(RabbitTemplate.class);
				assertThat(template).isNotInstanceOf(FencedRabbitTemplate.class);
				// the user's own template is fenced by a before-publish post-processor instead
				assertThat(template.getBeforePublishPostProcessors())
					.hasAtLeastOneElementOfType(io.starintel.lease.fence.amqp.FencingMessagePostProcessor.class);
			});
	}

	@Test
	void whenAmqpFencingDisabledThenPlainRabbitTemplate() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("starintel.lease.fence.amqp.enabled=false")
			.run((context) -> assertThat(context.getBean(RabbitTemplate.class))
				.isNotInstanceOf(FencedRabbitTemplate.class));
	}

	@Test
	void whenConsumerProgramConfiguredThenAdviceLeadsTheChainOfEveryContainerTheFactoryCreates() {
		consumerRunner().run((context) -> {
			FencedListenerAdvice advice = context.getBean(FencedListenerAdvice.class);
			SimpleRabbitListenerContainerFactory factory = context.getBean(SimpleRabbitListenerContainerFactory.class);
			assertThat(advice.isFirstIn(factory.createListenerContainer(null))).isTrue();
		});
	}

	/**
	 * A container customizer runs after the factory applied its advice chain and may replace the container's chain:
	 * the fence is still first, the customizer's advice behind it.
	 */
	@Test
	void whenAContainerCustomizerReplacesTheAdviceChainThenTheFenceIsStillFirst() {
		MethodInterceptor mine = MethodInvocation::proceed;
		consumerRunner().withBean("rabbitListenerContainerFactory", SimpleRabbitListenerContainerFactory.class, () -> {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			factory.setConnectionFactory(new CachingConnectionFactory());
			factory.setContainerCustomizer(replacingAdviceChain(mine));
			return factory;
		}).run((context) -> {
			FencedListenerAdvice advice = context.getBean(FencedListenerAdvice.class);
			SimpleRabbitListenerContainerFactory factory = context.getBean(SimpleRabbitListenerContainerFactory.class);
			SimpleMessageListenerContainer container = factory.createListenerContainer(null);
			assertThat(advice.isFirstIn(container)).isTrue();
			assertThat(adviceChain(container)).hasSize(2).element(1).isSameAs(mine);
		});
	}

	@Test
	void whenARabbitListenerIsRegisteredThenItsContainerIsFenced() {
		consumerRunner().withPropertyValues("spring.rabbitmq.listener.simple.auto-startup=false")
			.withBean(Listening.class)
			.run((context) -> {
				FencedListenerAdvice advice = context.getBean(FencedListenerAdvice.class);
				RabbitListenerEndpointRegistry registry = context.getBean(RabbitListenerEndpointRegistry.class);
				assertThat(registry.getListenerContainers()).singleElement()
					.satisfies((container) -> assertThat(
							advice.isFirstIn((AbstractMessageListenerContainer) container)).isTrue());
			});
	}

	@Test
	void whenAListenerContainerIsABeanThenItIsFenced() {
		consumerRunner().withBean("plainContainer", SimpleMessageListenerContainer.class, () -> {
			SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(new CachingConnectionFactory());
			container.setAutoStartup(false);
			container.setAdviceChain((MethodInterceptor) MethodInvocation::proceed);
			return container;
		})
			.withBean("directContainer", DirectMessageListenerContainer.class, () -> {
				DirectMessageListenerContainer container = new DirectMessageListenerContainer(
						new CachingConnectionFactory());
				container.setAutoStartup(false);
				return container;
			})
			.run((context) -> {
				FencedListenerAdvice advice = context.getBean(FencedListenerAdvice.class);
				assertThat(advice.isFirstIn(context.getBean(SimpleMessageListenerContainer.class))).isTrue();
				assertThat(adviceChain(context.getBean(SimpleMessageListenerContainer.class))).hasSize(2);
				assertThat(advice.isFirstIn(context.getBean(DirectMessageListenerContainer.class))).isTrue();
			});
	}

	/** A consumer on a lease store that is not the in-memory one (which gets no consumer fence). */
	private ApplicationContextRunner consumerRunner() {
		return this.runner.withBean(LeaseStore.class, () -> mock(LeaseStore.class))
			.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(mock(RedisConnectionFactory.class)))
			.withPropertyValues("starintel.lease.fence.amqp.consumer.tenant-id=tenant-a",
					"starintel.lease.fence.amqp.consumer.program-id=program-a");
	}

	private static List<Advice> adviceChain(AbstractMessageListenerContainer container) {
		return Arrays.asList((Advice[]) new DirectFieldAccessor(container).getPropertyValue("adviceChain"));
	}

	static class Listening {

		@RabbitListener(queues = "work")
		void onMessage(String body) {
		}

	}

	@Test
	void whenConsumerProgramNotConfiguredThenNoAdvice() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(mock(RedisConnectionFactory.class)))
			.run((context) -> assertThat(context).doesNotHaveBean(FencedListenerAdvice.class));
	}

	@Test
	void whenSpringAmqpIsMissingThenNothingIsConfigured() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class))
			.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withClassLoader(new FilteredClassLoader(RabbitTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedRabbitTemplate.class));
	}

	/**
	 * A container customizer that replaces the container's advice chain, as a runtime proxy: a lambda compiled
	 * against Spring AMQP 4.0 does not implement 4.1's {@code ContainerCustomizer.configure} (its parameter type moved
	 * to {@code org.springframework.amqp.core}), and the Spring Boot 4.1 line runs these compiled classes unchanged.
	 */
	@SuppressWarnings("rawtypes")
	static ContainerCustomizer replacingAdviceChain(Advice advice) {
		return (ContainerCustomizer) Proxy.newProxyInstance(ContainerCustomizer.class.getClassLoader(),
				new Class<?>[] { ContainerCustomizer.class }, (proxy, method, args) -> switch (method.getName()) {
					case "configure" -> {
						((AbstractMessageListenerContainer) args[0]).setAdviceChain(advice);
						yield null;
					}
					case "hashCode" -> System.identityHashCode(proxy);
					case "equals" -> proxy == args[0];
					case "toString" -> "customizer replacing the advice chain";
					default -> null;
				});
	}

}
