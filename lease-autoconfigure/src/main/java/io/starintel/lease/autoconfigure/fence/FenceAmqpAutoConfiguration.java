package io.starintel.lease.autoconfigure.fence;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.RabbitTemplateConfigurer;
import org.springframework.boot.amqp.autoconfigure.RabbitTemplateCustomizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import io.micrometer.core.instrument.MeterRegistry;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.fence.amqp.internal.MicrometerFenceRejectionMeter;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.amqp.internal.ConsumerRejectionRecorder;
import io.starintel.lease.fence.amqp.internal.FencedListenerAdvice;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;

/**
 * Auto-configures fenced RabbitMQ publication (the application's {@code RabbitTemplate} becomes a
 * {@link FencedRabbitTemplate}, configured like Boot's own; a {@code RabbitTemplate} the application declares itself
 * is fenced by {@link UserRabbitTemplateFencing}, except a {@code BatchingRabbitTemplate}, which cannot be) and, when
 * the consumer's program is configured and the lease store is not the in-memory one, the {@link FencedListenerAdvice}
 * put first in every listener container ({@link FencedListenerAdvicePostProcessor}).
 * It comes before {@link RabbitAutoConfiguration}, so that Boot's template backs off for the fenced one; its
 * conditions therefore never read the beans Boot's Rabbit auto-configuration defines. Contract: Rabbit publication
 * that makes an exclusive result externally visible is fenced; lower tokens are rejected at consumption.
 */
@AutoConfiguration(before = RabbitAutoConfiguration.class, after = FenceAutoConfiguration.class)
@ConditionalOnClass(RabbitTemplate.class)
@ConditionalOnBean(FenceGuard.class)
@ConditionalOnProperty(prefix = "starintel.lease.fence.amqp", name = "enabled", matchIfMissing = true)
public final class FenceAmqpAutoConfiguration {

	/**
	 * The application's template: a {@link FencedRabbitTemplate} in place of the one Spring Boot would auto-configure
	 * (Boot's backs off for it, as this configuration comes first), so it backs off when Boot's would: a
	 * {@link RabbitOperations} bean of the application, several {@link ConnectionFactory} beans and none primary, or
	 * {@link RabbitAutoConfiguration} excluded. The application's own templates are fenced all the same
	 * ({@link UserRabbitTemplateFencing}). The conditions are evaluated on the bean definitions so far: the
	 * application's and those of the auto-configurations before this one, never Boot's Rabbit beans.
	 */
	@Configuration(proxyBeanMethods = false)
	@Conditional(RabbitAutoConfigurationNotExcluded.class)
	static class FencedTemplateConfiguration {

		/** On the application's {@code ConnectionFactory}, its only one or its primary one (as Boot's template). */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnSingleCandidate(ConnectionFactory.class)
		static class ApplicationConnectionFactory {

			@Bean
			@ConditionalOnMissingBean(RabbitOperations.class)
			FencedRabbitTemplate rabbitTemplate(RabbitTemplateConfigurer configurer,
					ConnectionFactory connectionFactory, ObjectProvider<RabbitTemplateCustomizer> customizers,
					FenceGuard guard, FenceProperties properties, ObjectProvider<FenceRejectionMetrics> metrics) {
				return fencedTemplate(configurer, connectionFactory, customizers, guard, properties, metrics);
			}

		}

		/**
		 * On Boot's own {@code ConnectionFactory}, which {@link RabbitAutoConfiguration} (after this configuration)
		 * defines when the application declares none.
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnMissingBean(ConnectionFactory.class)
		static class BootConnectionFactory {

			@Bean
			@ConditionalOnMissingBean(RabbitOperations.class)
			FencedRabbitTemplate rabbitTemplate(RabbitTemplateConfigurer configurer,
					ConnectionFactory connectionFactory, ObjectProvider<RabbitTemplateCustomizer> customizers,
					FenceGuard guard, FenceProperties properties, ObjectProvider<FenceRejectionMetrics> metrics) {
				return fencedTemplate(configurer, connectionFactory, customizers, guard, properties, metrics);
			}

		}

	}

	/**
	 * The fenced template, configured like Boot's (its configurer and customizers), then mandatory. On this class, so
	 * that its methods name Spring AMQP types: without Spring AMQP, introspecting the class fails (Boot reads its
	 * {@code @ConditionalOnClass} without loading it; lease-admin-actuator's {@code AutoConfigurationChainTests},
	 * which registers the auto-configurations by reflection, leaves such classes out that way).
	 */
	static FencedRabbitTemplate fencedTemplate(RabbitTemplateConfigurer configurer,
			ConnectionFactory connectionFactory, ObjectProvider<RabbitTemplateCustomizer> customizers,
			FenceGuard guard, FenceProperties properties, ObjectProvider<FenceRejectionMetrics> metrics) {
		FencedRabbitTemplate template = new FencedRabbitTemplate(connectionFactory,
				FenceAutoConfiguration.guard(guard, metrics, FenceRejectionMetrics.PUBLISH),
				properties.amqp().fencedExchanges(), properties.amqp().fencedQueues());
		configurer.configure(template, connectionFactory);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(template));
		// contract: a fenced publish must detect unroutable messages (mandatory + returns)
		template.setMandatory(true);
		return template;
	}

	@Bean
	@ConditionalOnMissingBean
	ConsumerRejectionRecorder fenceRejections(ObjectProvider<AuditSink> auditSinks,
			ObjectProvider<AsyncAuditPipeline> auditPipeline, ObjectProvider<ConsumerRejectionRecorder.Meter> meter) {
		// a consumer thread never waits on a sink: events go through the non-blocking pipeline when there is one
		AsyncAuditPipeline pipeline = auditPipeline.getIfAvailable();
		if (pipeline != null) {
			return new ConsumerRejectionRecorder(pipeline::submit, meter.getIfAvailable());
		}
		return new ConsumerRejectionRecorder(auditSinks.orderedStream().toList(), meter.getIfAvailable());
	}

	/** Counts rejections in Micrometer when a registry exists (looked up when the rejections bean is created). */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean(ConsumerRejectionRecorder.Meter.class)
		ConsumerRejectionRecorder.Meter fenceRejectionMeter(ObjectProvider<MeterRegistry> registry) {
			return (point, reason) -> {
				MeterRegistry meters = registry.getIfAvailable();
				if (meters != null) {
					new MicrometerFenceRejectionMeter(meters).rejected(point, reason);
				}
			};
		}

	}

	/**
	 * The consumer fence, when the consumer's program is configured: {@link FencedListenerAdvice} on the Redis lease
	 * store's fence calls. None with the in-memory lease store ({@code starintel.lease.store=memory}, the test kit's
	 * in-memory mode, or a {@code LeaseStore} bean that is or decorates an {@link InMemoryLeaseStore}): the consume
	 * check reads the publishers' leases in Redis, where an in-memory store keeps none, so it would reject every
	 * genuine message as forged. Start-up then logs a WARN that the fenced queues are not checked on the consumer side.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "starintel.lease.fence.amqp.consumer", name = { "tenant-id", "program-id" })
	static class ConsumerFenceConfiguration {

		private static final Logger logger = LoggerFactory.getLogger(FenceAmqpAutoConfiguration.class);

		/** The lease store is not (declared as) the in-memory one. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(StringRedisTemplate.class)
		@ConditionalOnMissingBean(InMemoryLeaseStore.class)
		static class RedisConsumerFence {

			/**
			 * The advice; {@code null} (no bean) when the lease store bean turns out to be in-memory only when
			 * created (declared as {@code LeaseStore}).
			 */
			@Bean
			@ConditionalOnMissingBean
			@Nullable FencedListenerAdvice fencedListenerAdvice(ObjectProvider<StringRedisTemplate> redis,
					ObjectProvider<LeaseStore> stores, FenceProperties properties,
					ConsumerRejectionRecorder rejections) {
				if (RedisFenceCalls.inMemory(stores)) {
					warnNotInstalled(properties);
					return null;
				}
				FenceProperties.Consumer consumer = properties.amqp().consumer();
				ProgramScope scope = ProgramScope.of(consumer.tenantId(), consumer.programId());
				RedisLeaseStore leases = RedisFenceCalls.redisStore(stores);
				return (leases != null) ? new FencedListenerAdvice(leases.fenceCalls(),
						FencedListenerAdvice.DEFAULT_TIMEOUT, scope, consumer.requireFence(), rejections)
						: new FencedListenerAdvice(redis.getObject(), scope, consumer.requireFence(), rejections);
			}

		}

		/** Says at start-up that the consumer fence is not installed with the in-memory lease store. */
		@Bean
		@ConditionalOnBean(InMemoryLeaseStore.class)
		SmartInitializingSingleton inMemoryStoreConsumerFenceWarning(FenceProperties properties) {
			return () -> warnNotInstalled(properties);
		}

		static void warnNotInstalled(FenceProperties properties) {
			logger.warn("starintel.lease.fence.amqp.consumer.tenant-id and program-id are set, but the lease store is "
					+ "the in-memory store: no consumer fence is installed, so fenced queues {} are not checked on the "
					+ "consumer side (the consumer fence reads the publishers' leases in the Redis lease store); use "
					+ "the redis store to check them", properties.amqp().fencedQueues());
		}

	}

	/**
	 * {@link RabbitAutoConfiguration} is not excluded ({@code exclude} of {@code @SpringBootApplication},
	 * {@code @EnableAutoConfiguration} or {@code @ImportAutoConfiguration}, or {@code spring.autoconfigure.exclude}):
	 * without it Boot defines neither its template nor its {@code RabbitTemplateConfigurer} and
	 * {@code ConnectionFactory}. Its beans cannot be conditions here (they are defined after this configuration), so
	 * this reads the exclusions Boot records when it selects the auto-configurations, before any is evaluated. A
	 * context that lists its auto-configurations itself (a test's {@code ApplicationContextRunner}) includes
	 * {@code RabbitAutoConfiguration} or declares its {@code ConnectionFactory} and {@code RabbitTemplateConfigurer}.
	 */
	static final class RabbitAutoConfigurationNotExcluded extends SpringBootCondition {

		private static final String RABBIT_AUTO_CONFIGURATION = RabbitAutoConfiguration.class.getName();

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionMessage.Builder message = ConditionMessage.forCondition("RabbitAutoConfiguration not excluded");
			ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
			ConditionEvaluationReport report = (beanFactory != null) ? ConditionEvaluationReport.find(beanFactory)
					: null;
			if (report != null && report.getExclusions().contains(RABBIT_AUTO_CONFIGURATION)) {
				return ConditionOutcome
					.noMatch(message.because("it is excluded: Boot auto-configures no RabbitTemplate"));
			}
			return ConditionOutcome.match(message.because("it is not excluded"));
		}

	}

	/** Fences the RabbitTemplate beans the application declares itself (see {@link UserRabbitTemplateFencing}). */
	@Bean
	static UserRabbitTemplateFencing userRabbitTemplateFencing(ObjectProvider<FenceGuard> guards,
			ObjectProvider<FenceProperties> properties, ObjectProvider<FenceRejectionMetrics> metrics) {
		return new UserRabbitTemplateFencing(guards, properties, metrics);
	}

	@Bean
	static FencedListenerAdvicePostProcessor fencedListenerAdvicePostProcessor(
			ObjectProvider<FencedListenerAdvice> advice) {
		return new FencedListenerAdvicePostProcessor(advice);
	}

}
