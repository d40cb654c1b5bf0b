package io.starintel.lease.testing.autoconfigure;

import java.time.Clock;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.testing.AutoConfigureLeaseTest;
import io.starintel.lease.testing.CapturedAuditEvents;
import io.starintel.lease.testing.internal.CouchDbPropertySource;
import io.starintel.lease.testing.internal.LeaseTestPostProcessor;
import io.starintel.lease.testing.internal.MutableBackendClock;
import io.starintel.lease.testing.internal.OnMemoryLeaseTestCondition;

/**
 * Lease testing ({@link AutoConfigureLeaseTest}), before the library's store auto-configuration:
 * <ul>
 * <li>without Redis ({@code LeaseTestModes}): an {@link InMemoryLeaseStore} on a backend clock the test moves;
 * with a Redis/Valkey service connection or a configured Redis: nothing here, the library's Redis store;</li>
 * <li>either way, the store bean wrapped for tests (switchable, recording) and the lost-lease listener recording;</li>
 * <li>a {@link CapturedAuditEvents} audit sink (the tester: {@link LeaseTesterAutoConfiguration});</li>
 * <li>the {@code starintel.lease.test.couchdb.*} properties of a CouchDB service connection.</li>
 * </ul>
 */
@AutoConfiguration(before = LeaseStoreAutoConfiguration.class,
		afterName = "org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration",
		beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
public final class LeaseTestAutoConfiguration {

	@Bean
	static LeaseTestPostProcessor leaseTestPostProcessor() {
		return new LeaseTestPostProcessor();
	}

	@Bean
	static BeanFactoryPostProcessor leaseTestCouchDbProperties(Environment environment) {
		return (beanFactory) -> {
			if (environment instanceof ConfigurableEnvironment configurable
					&& !configurable.getPropertySources().contains(CouchDbPropertySource.NAME)) {
				configurable.getPropertySources().addLast(new CouchDbPropertySource(beanFactory));
			}
		};
	}

	@Bean
	@ConditionalOnMissingBean
	CapturedAuditEvents leaseTestAuditEvents() {
		return new CapturedAuditEvents();
	}

	/** The in-memory store, when the test has no Redis (or asks for it). */
	@Configuration(proxyBeanMethods = false)
	@Conditional(OnMemoryLeaseTestCondition.class)
	static class MemoryStoreConfiguration {

		@Bean(name = LeaseTestPostProcessor.CLOCK_BEAN, defaultCandidate = false)
		MutableBackendClock leaseTestBackendClock() {
			return new MutableBackendClock(Clock.systemUTC());
		}

		@Bean(name = LeaseTestPostProcessor.MEMORY_STORE_BEAN)
		@ConditionalOnMissingBean(LeaseStore.class)
		InMemoryLeaseStore leaseTestMemoryStore(LeasePolicy policy,
				@Qualifier(LeaseTestPostProcessor.CLOCK_BEAN) MutableBackendClock clock) {
			return new InMemoryLeaseStore(clock, policy);
		}

	}

}
