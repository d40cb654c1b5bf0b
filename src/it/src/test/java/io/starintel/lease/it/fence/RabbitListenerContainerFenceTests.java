package io.starintel.lease.it.fence;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceAmqpAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceAutoConfiguration;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.test.TestServers;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.BatchMessageListener;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.ContainerCustomizer;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The consumer fence in the listener containers a real application builds, against the real broker and the real lease
 * store (Redis, and Valkey: {@link ValkeyRabbitListenerContainerFenceTests}): a factory whose container customizer
 * replaces the advice chain, a listener container declared as a bean, {@code MANUAL} acknowledgement and a consumer
 * batch. Each queue dead-letters into its own DLQ; a rejected message must end there, never in the listener.
 */
class RabbitListenerContainerFenceTests {

	private FenceFixture fixture;

	private CachingConnectionFactory connectionFactory;

	private RabbitAdmin admin;

	private FencedRabbitTemplate template;

	private RabbitTemplate plain;

	private String work;

	private String dead;

	private String beanQueue;

	private String beanDead;

	private AbstractMessageListenerContainer container;

	@BeforeEach
	void setUp() {
		this.fixture = new FenceFixture(RedisServerKind.of(getClass()));
		this.connectionFactory = RabbitFenceTests.connectionFactory();
		this.admin = new RabbitAdmin(this.connectionFactory);
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		this.work = "fence-it-container-work-" + suffix;
		this.dead = "fence-it-container-dlq-" + suffix;
		this.beanQueue = "fence-it-container-bean-" + suffix;
		this.beanDead = "fence-it-container-bean-dlq-" + suffix;
		declareWithDeadLetterQueue(this.work, this.dead);
		declareWithDeadLetterQueue(this.beanQueue, this.beanDead);
		this.template = new FencedRabbitTemplate(this.connectionFactory, this.fixture.guard, Set.of(), Set.of());
		this.plain = new RabbitTemplate(this.connectionFactory);
	}

	private void declareWithDeadLetterQueue(String queue, String deadLetters) {
		this.admin.declareQueue(new Queue(deadLetters, false, false, false));
		this.admin.declareQueue(
				QueueBuilder.nonDurable(queue).deadLetterExchange("").deadLetterRoutingKey(deadLetters).build());
	}

	@AfterEach
	void tearDown() {
		if (this.container != null) {
			this.container.stop();
		}
		for (String queue : List.of(this.work, this.dead, this.beanQueue, this.beanDead)) {
			this.admin.deleteQueue(queue);
		}
		this.connectionFactory.destroy();
		this.fixture.close();
	}

	/**
	 * The application's listener container factory has a container customizer that sets the container's advice
	 * chain (which replaced the chain the factory had been given, fence included): the fence is still first, the
	 * customizer's advice runs behind it for the accepted message only, and an unfenced and a stale message are
	 * dead-lettered, not processed.
	 */
	@Test
	void aContainerCustomizerReplacingTheAdviceChainDoesNotRemoveTheFence() {
		try (ConfigurableApplicationContext app = start()) {
			Received received = app.getBean(Received.class);
			LeaseContext a = this.fixture.acquire(this.fixture.identity("customizer"), "alice", 300);
			this.fixture.awaitExpired(a);
			LeaseContext b = this.fixture.acquire(this.fixture.identity("customizer"), "bob", 30_000);
			try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
				assertThat(this.template.trySend("", this.work, RabbitFenceTests.message("from B")).isAccepted())
					.isTrue();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> received.byListener.size() == 1);
			this.plain.convertAndSend(this.work, "no fence");
			this.plain.send(this.work, RabbitFenceTests.forged("stale A", a, a.fencingToken(), a.leaseId()));
			assertThat(deadLettered(this.dead, 2)).containsExactlyInAnyOrder("no fence", "stale A");
			assertThat(received.byListener).containsExactly("from B");
			assertThat(received.customizerAdvice.get()).isEqualTo(1);
		}
	}

	/** A listener container declared as a bean (not built by a factory) is fenced as well. */
	@Test
	void aListenerContainerBeanIsFenced() {
		try (ConfigurableApplicationContext app = start()) {
			Received received = app.getBean(Received.class);
			this.plain.convertAndSend(this.beanQueue, "no fence");
			assertThat(deadLettered(this.beanDead, 1)).containsExactly("no fence");
			LeaseContext b = this.fixture.acquire(this.fixture.identity("container-bean"), "bob", 30_000);
			try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
				assertThat(this.template.trySend("", this.beanQueue, RabbitFenceTests.message("from B")).isAccepted())
					.isTrue();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> received.byBean.size() == 1);
			assertThat(received.byBean).containsExactly("from B");
		}
	}

	/**
	 * With {@code MANUAL} acknowledgement the container never rejects a message on an exception: the fence rejects
	 * it on the channel itself. 300 unfenced messages (more than the prefetch of 250) are dead-lettered and the valid
	 * message behind them is delivered.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "simple", "direct" })
	void withManualAcknowledgementRejectedMessagesAreDeadLetteredAndTheConsumerDoesNotStall(String kind) {
		List<String> consumed = new CopyOnWriteArrayList<>();
		this.container = kind.equals("simple") ? new SimpleMessageListenerContainer(this.connectionFactory)
				: new DirectMessageListenerContainer(this.connectionFactory);
		this.container.setQueueNames(this.work);
		this.container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
		this.container.setMessageListener((ChannelAwareMessageListener) (message, channel) -> {
			consumed.add(RabbitFenceTests.body(message));
			channel.basicAck(message.getMessageProperties().getDeliveryTag(), false);
		});
		advice().fenceFirst(this.container);
		for (int i = 0; i < 300; i++) {
			this.plain.convertAndSend(this.work, "no fence " + i);
		}
		LeaseContext b = this.fixture.acquire(this.fixture.identity("manual-" + kind), "bob", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(this.template.trySend("", this.work, RabbitFenceTests.message("from B")).isAccepted()).isTrue();
		}
		this.container.start();
		await().atMost(Duration.ofSeconds(30)).until(() -> consumed.contains("from B"));
		await().atMost(Duration.ofSeconds(30)).until(() -> this.admin.getQueueInfo(this.dead).getMessageCount() == 300);
		assertThat(consumed).containsExactly("from B");
	}

	/**
	 * A consumer batch of 5 with two stale messages (one in the middle, one last): the listener gets the three valid
	 * ones in one batch, only the two stale ones are dead-lettered, the consumer goes on (no channel error from
	 * settling a delivery twice, no redelivery of the accepted ones).
	 */
	@Test
	void inAConsumerBatchOnlyTheRejectedMessagesAreDeadLettered() {
		List<List<String>> batches = new CopyOnWriteArrayList<>();
		SimpleMessageListenerContainer batching = new SimpleMessageListenerContainer(this.connectionFactory);
		batching.setQueueNames(this.work);
		batching.setConsumerBatchEnabled(true);
		batching.setBatchSize(5);
		batching.setMessageListener(
				(BatchMessageListener) (messages) -> batches.add(messages.stream().map(RabbitFenceTests::body).toList()));
		this.container = batching;
		advice().fenceFirst(this.container);
		LeaseContext a = this.fixture.acquire(this.fixture.identity("batch"), "alice", 300);
		this.fixture.awaitExpired(a);
		LeaseContext b = this.fixture.acquire(this.fixture.identity("batch"), "bob", 30_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			sendAccepted("valid 1");
			this.plain.send(this.work, RabbitFenceTests.forged("stale 1", a, a.fencingToken(), a.leaseId()));
			sendAccepted("valid 2");
			sendAccepted("valid 3");
			this.plain.send(this.work, RabbitFenceTests.forged("stale 2", a, a.fencingToken(), a.leaseId()));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.getQueueInfo(this.work).getMessageCount() == 5);
		this.container.start();
		assertThat(deadLettered(this.dead, 2)).containsExactlyInAnyOrder("stale 1", "stale 2");
		await().atMost(Duration.ofSeconds(10)).until(() -> !batches.isEmpty());
		assertThat(batches.get(0)).containsExactly("valid 1", "valid 2", "valid 3");
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			sendAccepted("valid 4");
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> batches.stream().anyMatch((batch) -> batch.contains("valid 4")));
		assertThat(batches.stream().flatMap(List::stream)).containsExactly("valid 1", "valid 2", "valid 3", "valid 4");
		assertThat(this.plain.receive(this.dead)).isNull();
	}

	private void sendAccepted(String text) {
		assertThat(this.template.trySend("", this.work, RabbitFenceTests.message(text)).isAccepted()).isTrue();
	}

	private FencedListenerAdvice advice() {
		return new FencedListenerAdvice(this.fixture.redis, ProgramScope.of(this.fixture.tenant, this.fixture.program),
				true, new ConsumerRejectionRecorder());
	}

	/** Exactly {@code count} bodies taken from a dead-letter queue (waiting for each). */
	private List<String> deadLettered(String queue, int count) {
		List<String> bodies = new CopyOnWriteArrayList<>();
		for (int i = 0; i < count; i++) {
			Message message = await().atMost(Duration.ofSeconds(15)).until(() -> this.plain.receive(queue),
					(m) -> m != null);
			bodies.add(RabbitFenceTests.body(message));
		}
		return bodies;
	}

	/** The application, consuming as the fixture's program. */
	private ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.properties("spring.data.redis.url=" + this.fixture.server.uri(),
					"starintel.lease.tenant=" + this.fixture.tenant, "starintel.lease.program=" + this.fixture.program,
					"starintel.lease.owner.service-principal=prn_consumer",
					"starintel.lease.fence.amqp.consumer.tenant-id=" + this.fixture.tenant,
					"starintel.lease.fence.amqp.consumer.program-id=" + this.fixture.program,
					"spring.rabbitmq.host=" + TestServers.rabbitHost(),
					"spring.rabbitmq.port=" + TestServers.rabbitPort(), "spring.rabbitmq.username=guest",
					"spring.rabbitmq.password=guest", "it.work=" + this.work, "it.bean-queue=" + this.beanQueue)
			.run();
	}

	/** What the application's listeners received, and how often the customizer's advice ran. */
	static final class Received {

		final List<String> byListener = new CopyOnWriteArrayList<>();

		final List<String> byBean = new CopyOnWriteArrayList<>();

		final AtomicInteger customizerAdvice = new AtomicInteger();

	}

	@SpringBootConfiguration
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
			LeaseAuditAutoConfiguration.class, FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class,
			RabbitAutoConfiguration.class })
	static class App {

		@Bean
		Received received() {
			return new Received();
		}

		/** The application's factory: its customizer sets each container's advice chain. */
		@Bean
		SimpleRabbitListenerContainerFactory rabbitListenerContainerFactory(
				SimpleRabbitListenerContainerFactoryConfigurer configurer, ConnectionFactory connectionFactory,
				Received received) {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			configurer.configure(factory, connectionFactory);
			MethodInterceptor counting = (invocation) -> {
				received.customizerAdvice.incrementAndGet();
				return invocation.proceed();
			};
			factory.setContainerCustomizer(replacingAdviceChain(counting));
			return factory;
		}

		@Bean
		Listener listener(Received received) {
			return new Listener(received);
		}

		/** A container the application declares itself. */
		@Bean
		SimpleMessageListenerContainer plainContainer(ConnectionFactory connectionFactory, Received received,
				@Value("${it.bean-queue}") String queue) {
			SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(connectionFactory);
			container.setQueueNames(queue);
			container.setMessageListener((message) -> received.byBean.add(RabbitFenceTests.body(message)));
			return container;
		}

	}

	static final class Listener {

		private final Received received;

		Listener(Received received) {
			this.received = received;
		}

		@RabbitListener(queues = "${it.work}")
		void onMessage(Message message) {
			this.received.byListener.add(RabbitFenceTests.body(message));
		}

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
