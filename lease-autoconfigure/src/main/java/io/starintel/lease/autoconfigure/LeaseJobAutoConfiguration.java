package io.starintel.lease.autoconfigure;

import java.time.Clock;

import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;

import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.job.internal.JobSettings;
import io.starintel.lease.job.LeaseLostListener;
import io.starintel.lease.job.LeaseOwnerProvider;
import io.starintel.lease.job.internal.LeaseRenewalScheduler;
import io.starintel.lease.job.internal.TargetLeaseInterceptor;
import io.starintel.lease.job.internal.TargetLeasedAdvisor;
import io.starintel.lease.job.TargetResolver;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.sweep.LeaseMeters;

/**
 * {@code @TargetLeased} jobs over the {@link LeaseService} facade of {@link LeaseAuditAutoConfiguration}: the
 * JVM-wide renewal scheduler, the interceptor and its advisor, the owner and target resolution, context propagation
 * into executors, the start-up checks of every {@code @TargetLeased} method and the bounded graceful shutdown. Without
 * a lease store start-up fails before any bean is created, naming both options ({@link LeaseStoreCheck}). Needs
 * Micrometer on the classpath (the starter brings it) and an auto-proxy creator (Spring Boot registers one unless
 * {@code spring.aop.auto=false}; AspectJ is not needed); every bean backs off for a user bean of the same type.
 */
@AutoConfiguration(after = { LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class })
@ConditionalOnClass({ MeterRegistry.class, ObservationRegistry.class })
@EnableConfigurationProperties(LeaseProperties.class)
public final class LeaseJobAutoConfiguration {

	/** Gauge of the leases this JVM holds. */
	public static final String HELD_GAUGE = "starintel.lease.held";

	/** Timer of how late renewals run compared with their schedule. */
	public static final String RENEWAL_LAG_TIMER = "starintel.lease.renewal.lag";

	@Bean
	@ConditionalOnMissingBean
	LeaseLostListener leaseLostListener(ApplicationEventPublisher publisher) {
		return publisher::publishEvent;
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	LeaseRenewalScheduler leaseRenewalScheduler(ObjectProvider<LeaseService> services, LeaseProperties properties,
			LeaseLostListener listener, ObjectProvider<MeterRegistry> registries) {
		LeaseService service = service(services, properties);
		LeaseRenewalScheduler scheduler = new LeaseRenewalScheduler(service, Clock.systemUTC(),
				properties.getRenewal().margin(), countingLosses(listener, registries),
				properties.getRenewal().threads());
		// a force-release or revoke in this JVM (the admin endpoint, the console) cancels its job at once
		service.onAdministrativeEnd(scheduler::renewSoon);
		MeterRegistry meters = registries.getIfAvailable();
		if (meters == null) {
			return scheduler;
		}
		Gauge.builder(HELD_GAUGE, scheduler, LeaseRenewalScheduler::heldCount)
			.description("Leases held and renewed by this JVM")
			.register(meters);
		Timer lag = Timer.builder(RENEWAL_LAG_TIMER).description("How late renewals ran").register(meters);
		scheduler.setLagRecorder(lag::record);
		return scheduler;
	}

	/**
	 * The listener, after counting the loss in {@value LeaseMeters#LOST} (tag {@code reason}), the user's listener
	 * included.
	 */
	private static LeaseLostListener countingLosses(LeaseLostListener listener,
			ObjectProvider<MeterRegistry> registries) {
		return (event) -> {
			try {
				MeterRegistry meters = registries.getIfAvailable();
				if (meters != null) {
					Counter.builder(LeaseMeters.LOST)
						.description("Leases lost by leased jobs (the job was cancelled), by reason")
						.tag("reason", event.reason().wireName())
						.register(meters)
						.increment();
				}
			}
			catch (RuntimeException ex) {
				// the job's cancellation never depends on a meter
			}
			listener.leaseLost(event);
		};
	}

	@Bean
	@ConditionalOnMissingBean
	TargetResolver targetResolver() {
		return TargetResolver.PASS_THROUGH;
	}

	@Bean
	@ConditionalOnMissingBean
	JobSettings leaseJobSettings(LeaseProperties properties) {
		return new JobSettings(properties.getTenant(), properties.getProgram(), properties.operationClassSet(),
				properties.getRequest().maximumWait(), properties.getJob().cancellation());
	}

	@Bean
	@ConditionalOnMissingBean
	TargetLeaseInterceptor targetLeaseInterceptor(ObjectProvider<LeaseService> services, LeaseProperties properties,
			LeaseRenewalScheduler scheduler, TargetResolver resolver, LeaseOwnerProvider owners, JobSettings settings) {
		return new TargetLeaseInterceptor(service(services, properties), scheduler, resolver, owners, settings);
	}

	/**
	 * Applies the interceptor to {@code @TargetLeased} methods (static, infrastructure role: every auto-proxy creator
	 * takes it, and it is created before the beans it advises without creating the interceptor's dependencies).
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean(name = "targetLeasedAdvisor")
	static Advisor targetLeasedAdvisor(ObjectProvider<TargetLeaseInterceptor> interceptor) {
		return new TargetLeasedAdvisor(interceptor::getObject);
	}

	/**
	 * Fails start-up, naming what to configure, when there is no lease store (hence no facade), before any bean is
	 * created (static: a bean factory post processor).
	 */
	@Bean
	static LeaseStoreCheck leaseStoreCheck(Environment environment) {
		return new LeaseStoreCheck(environment);
	}

	/** The facade; without a lease store (hence no facade) start-up fails naming what to configure. */
	static LeaseService service(ObjectProvider<LeaseService> services, LeaseProperties properties) {
		return services.getIfAvailable(() -> {
			throw LeaseStoreCheck.noStore(properties.getStore().name());
		});
	}

	/** Start-up checks of every @TargetLeased method: durations against the policy, and misuse. */
	@Bean
	@ConditionalOnMissingBean(name = "targetLeasedVerifier")
	SmartInitializingSingleton targetLeasedVerifier(LeasePolicy policy, LeaseProperties properties) {
		return TargetLeaseInterceptor.startupChecks(policy, properties.getRequest().maximumWait(),
				properties.getJob().misuse());
	}

	/** Names the bean and method when a @TargetLeased bean's class is final (before proxying fails). */
	@Bean
	static BeanPostProcessor finalLeasedClassCheck() {
		return TargetLeaseInterceptor.finalClassCheck();
	}

	/** Bounded graceful shutdown: stop new leased work, cancel running jobs, release their leases. */
	@Bean
	@ConditionalOnMissingBean(name = "leasedJobsShutdown")
	SmartLifecycle leasedJobsShutdown(TargetLeaseInterceptor interceptor, LeaseRenewalScheduler scheduler,
			ObjectProvider<LeaseService> services, LeaseProperties properties) {
		return interceptor.shutdown(scheduler, service(services, properties), properties.getJob().shutdownTimeout());
	}

	static LeaseOwnerProvider servicePrincipal(LeaseProperties properties) {
		LeaseProperties.Owner configured = properties.getOwner();
		LeaseOwner owner = new LeaseOwner(configured.servicePrincipal(), configured.clientId(),
				configured.credentialId(), configured.effectiveServiceInstanceId());
		return () -> owner;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
	static class SecurityOwnerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaseOwnerProvider leaseOwnerProvider(LeaseProperties properties) {
			return new SecurityLeaseOwnerProvider(servicePrincipal(properties));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("org.springframework.security.core.context.SecurityContextHolder")
	static class ServiceOwnerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaseOwnerProvider leaseOwnerProvider(LeaseProperties properties) {
			return servicePrincipal(properties);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ContextSnapshotFactory.class)
	static class ContextPropagationConfiguration {

		/** Carries LeaseContext (and every other registered ThreadLocalAccessor) into @Async and executors. */
		@Bean
		@ConditionalOnMissingBean(TaskDecorator.class)
		ContextPropagatingTaskDecorator leaseContextPropagatingTaskDecorator() {
			return new ContextPropagatingTaskDecorator();
		}

	}

}
