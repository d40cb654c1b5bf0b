package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.batch.SimpleBatchingStrategy;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.fence.amqp.FencedPublishRejectedException;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.amqp.FencingMessagePostProcessor;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;

/**
 * An application that declares its own {@link RabbitTemplate} (so the auto-configured {@link FencedRabbitTemplate}
 * backs off), assembled with the real auto-configurations against the real RabbitMQ (127.0.0.1:5672 guest/guest, or
 * {@code -Dstarintel.rabbit.host}/{@code -Dstarintel.rabbit.port}): its stale publish is refused, unless fencing of
 * user templates is turned off, which start-up reports.
 */
@ExtendWith(OutputCaptureExtension.class)
class UserRabbitTemplateFencingTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"t-rabbit", "usernamegen", "default", null);

	private static final LockIdentity OTHER_IDENTITY = LockIdentity.of("tenant-main", "program-a",
			"starintel-target", "t-rabbit-other", "usernamegen", "default", null);

	private static final LeaseOwner OWNER = new LeaseOwner("prn_test", "c", "k", "i");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class, RabbitAutoConfiguration.class))
		.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
				"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test",
				"spring.rabbitmq.host=" + System.getProperty("starintel.rabbit.host", "127.0.0.1"),
				"spring.rabbitmq.port=" + System.getProperty("starintel.rabbit.port", "5672"),
				"spring.rabbitmq.username=guest", "spring.rabbitmq.password=guest")
		.withUserConfiguration(UserTemplate.class)
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

	@Configuration(proxyBeanMethods = false)
	static class UserTemplate {

		@Bean
		RabbitTemplate myTemplate(ConnectionFactory connectionFactory) {
			return new RabbitTemplate(connectionFactory);
		}

	}

	/** A batching template of the application: batches of two, released by the second send. */
	@Configuration(proxyBeanMethods = false)
	static class UserBatchingTemplate {

		@Bean
		ThreadPoolTaskScheduler batchScheduler() {
			return new ThreadPoolTaskScheduler();
		}

		@Bean
		BatchingRabbitTemplate myBatchingTemplate(ConnectionFactory connectionFactory,
				ThreadPoolTaskScheduler batchScheduler) {
			return new BatchingRabbitTemplate(connectionFactory, new SimpleBatchingStrategy(2, 100_000, 60_000),
					batchScheduler);
		}

	}

	@Test
	void whenUserDeclaresATemplateThenItIsFencedAndItsStalePublishIsRefused() {
		this.runner.run((context) -> {
			RabbitTemplate template = context.getBean("myTemplate", RabbitTemplate.class);
			assertThat(template).isNotInstanceOf(FencedRabbitTemplate.class);
			assertThat(template.getBeforePublishPostProcessors()).hasAtLeastOneElementOfType(
					FencingMessagePostProcessor.class);
			String queue = queue(context);
			LeaseService service = context.getBean(LeaseService.class);
			LeaseRecord first = acquire(service);
			LeaseContext holder = new LeaseContext(first);
			try (LeaseContext.Scope scope = LeaseContext.bind(holder)) {
				template.convertAndSend("", queue, "fresh");
			}
			Message fresh = template.receive(queue, 5_000);
			assertThat(fresh).isNotNull();
			assertThat((Object) fresh.getMessageProperties().getHeader(FenceHeaders.TOKEN))
				.isEqualTo(first.fencingToken());
			// the holder is superseded: released, and the target leased again by a successor
			assertThat(service.release(new ReleaseRequest(first.handle(), service.newId(), service.deadline()))
				.code()).isEqualTo(ResultCode.LEASE_RELEASED);
			acquire(service);
			try (LeaseContext.Scope scope = LeaseContext.bind(holder)) {
				assertThatExceptionOfType(FencedPublishRejectedException.class)
					.isThrownBy(() -> template.convertAndSend("", queue, "stale"))
					.satisfies((ex) -> assertThat(ex.result().outcome()).isEqualTo(FenceOutcome.LEASE_LOST));
			}
			assertThat(template.receive(queue, 1_000)).isNull();
			assertThat(context.getBean(MeterRegistry.class)
				.get("starintel.lease.fence.rejections")
				.tag("enforcement_point", "amqp_publish")
				.tag("reason", "lease_lost")
				.counter()
				.count()).isEqualTo(1.0);
		});
	}

	/**
	 * A batching template is not fenced: a batch is published by whichever thread releases it, so a fencing
	 * post-processor stamped a revoked holder's buffered message with the lease of the holder (of another target) whose
	 * send completed the batch. Now its messages go out unstamped (a fenced consumer rejects them), and start-up says
	 * so once, naming the bean.
	 */
	@Test
	void whenUserDeclaresABatchingTemplateThenItIsNotFencedItsBatchesGoOutUnstampedAndStartUpSaysSo(
			CapturedOutput output) {
		this.runner.withUserConfiguration(UserBatchingTemplate.class).run((context) -> {
			BatchingRabbitTemplate batching = context.getBean("myBatchingTemplate", BatchingRabbitTemplate.class);
			assertThat(batching.getBeforePublishPostProcessors()).isNullOrEmpty();
			assertThat(output).containsOnlyOnce("RabbitTemplate bean 'myBatchingTemplate'")
				.contains("batches its publishes and is not fenced")
				.contains("they go out unstamped (fenced consumers reject them)")
				.contains("Send fenced publishes through the fenced RabbitTemplate");
			String queue = queue(context);
			LeaseService service = context.getBean(LeaseService.class);
			LeaseRecord stale = acquire(service);
			assertThat(service.release(new ReleaseRequest(stale.handle(), service.newId(), service.deadline()))
				.code()).isEqualTo(ResultCode.LEASE_RELEASED);
			acquire(service);
			try (LeaseContext.Scope scope = LeaseContext.bind(new LeaseContext(stale))) {
				batching.convertAndSend("", queue, "A stale");
			}
			LeaseRecord other = acquire(service, OTHER_IDENTITY);
			try (LeaseContext.Scope scope = LeaseContext.bind(new LeaseContext(other))) {
				batching.convertAndSend("", queue, "D current, other target");
			}
			Message batch = batching.receive(queue, 5_000);
			assertThat(batch).isNotNull();
			assertThat(batch.getMessageProperties().getHeaders()).containsKey(MessageProperties.SPRING_BATCH_FORMAT)
				.doesNotContainKeys(FenceHeaders.TOKEN, FenceHeaders.LEASE_ID, FenceHeaders.LOCK_KEY_DIGEST);
		});
	}

	@Test
	void whenFencingOfUserTemplatesIsOffThenTheStalePublishGoesOutAndStartUpSaysSo(CapturedOutput output) {
		this.runner.withPropertyValues("starintel.lease.fence.amqp.fence-user-templates=false").run((context) -> {
			RabbitTemplate template = context.getBean("myTemplate", RabbitTemplate.class);
			assertThat(output).contains("RabbitTemplate bean 'myTemplate' publishes unfenced");
			String queue = queue(context);
			LeaseService service = context.getBean(LeaseService.class);
			LeaseRecord first = acquire(service);
			service.release(new ReleaseRequest(first.handle(), service.newId(), service.deadline()));
			acquire(service);
			try (LeaseContext.Scope scope = LeaseContext.bind(new LeaseContext(first))) {
				template.convertAndSend("", queue, "stale");
			}
			assertThat(template.receive(queue, 5_000)).isNotNull();
		});
	}

	@Test
	void whenUserDeclaresRabbitOperationsThatIsNotATemplateThenStartUpSaysItPublishesUnfenced(CapturedOutput output) {
		chain()
			.withBean("myOperations", RabbitOperations.class, () -> mock(RabbitOperations.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(FencedRabbitTemplate.class);
				assertThat(output).contains("RabbitOperations bean 'myOperations'")
					.contains("is not a RabbitTemplate and publishes unfenced");
			});
	}

	@Test
	void whenFencedDestinationAndNoLeaseContextThenTheUserTemplateRefuses() {
		this.runner.withPropertyValues("starintel.lease.fence.amqp.fenced-exchanges=results").run((context) -> {
			RabbitTemplate template = context.getBean("myTemplate", RabbitTemplate.class);
			assertThatExceptionOfType(FencedPublishRejectedException.class)
				.isThrownBy(() -> template.convertAndSend("results", "r", "no context"))
				.satisfies((ex) -> assertThat(ex.result().outcome()).isEqualTo(FenceOutcome.NO_LEASE_CONTEXT));
		});
	}

	@Test
	void whenSpringRabbitIsAbsentThenTheChainStartsWithoutAmqp() {
		chain()
			.withClassLoader(new FilteredClassLoader("org.springframework.amqp", "com.rabbitmq"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(UserRabbitTemplateFencing.class)
				.doesNotHaveBean("rabbitTemplate"));
	}

	/** The auto-configuration chain with the lease settings only: no broker address, no user template. */
	private static ApplicationContextRunner chain() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class,
					LeaseAuditAutoConfiguration.class, FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class,
					RabbitAutoConfiguration.class))
			.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
					"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test");
	}

	private static String queue(AssertableApplicationContext context) {
		String name = "starintel-user-template-" + UUID.randomUUID().toString().substring(0, 8);
		// not auto-delete (each receive is a consumer of its own); the broker removes it a minute after its last use
		context.getBean(AmqpAdmin.class).declareQueue(QueueBuilder.nonDurable(name).expires(60_000).build());
		return name;
	}

	private static LeaseRecord acquire(LeaseService service) {
		return acquire(service, IDENTITY);
	}

	private static LeaseRecord acquire(LeaseService service, LockIdentity identity) {
		LeaseResult result = service.acquire(AcquireRequest.builder(identity, OWNER)
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(service.newId(), service.deadline()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

}
