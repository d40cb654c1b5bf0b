package io.starintel.lease.autoconfigure;

import java.time.Clock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * The lease store: {@code memory} when {@code starintel.lease.store=memory} (single JVM, with a start-up WARN);
 * otherwise Redis when a {@code RedisConnectionFactory} exists, which must be Lettuce's (start-up fails otherwise,
 * see {@link RedisClientCheck}). A user {@link LeaseStore} bean always wins.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@EnableConfigurationProperties({ LeaseProperties.class, LeaseRedisProperties.class })
public final class LeaseStoreAutoConfiguration {

	/** Counter of store alerts, tagged {@code reason} and {@code operation}. */
	public static final String ALERTS_COUNTER = "starintel.lease.alerts";

	private static final Logger logger = LoggerFactory.getLogger(LeaseStoreAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	LeasePolicy leasePolicy(LeaseProperties properties) {
		return properties.policy();
	}

	@Bean
	@ConditionalOnMissingBean
	LeaseAlerts leaseAlertsLog() {
		return LeaseAlerts.LOG;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
	static class AlertMetricsConfiguration {

		/**
		 * Counts each alert in {@code starintel.lease.alerts}, tagged by reason and operation only (the store itself
		 * logs every alert).
		 */
		@Bean
		@ConditionalOnMissingBean
		LeaseAlerts leaseAlerts(ObjectProvider<MeterRegistry> meters) {
			return (alert) -> {
				MeterRegistry registry = meters.getIfAvailable();
				if (registry != null) {
					Counter.builder(ALERTS_COUNTER)
						.description("Lease store operator alerts (corrupt record, counter limit, clock behind)")
						.tag("reason", alert.reason().wireName())
						.tag("operation", alert.operation())
						.register(registry)
						.increment();
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedisConnectionFactory.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	@ConditionalOnProperty(name = "starintel.lease.store", havingValue = "redis", matchIfMissing = true)
	static class RedisStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(LeaseStore.class)
		RedisLeaseStore leaseStore(RedisConnectionFactory connectionFactory, LeasePolicy policy, LeaseAlerts alerts,
				LeaseProperties properties, LeaseRedisProperties redis) {
			RedisClientCheck.requireLettuce(connectionFactory);
			RedisLeaseStore.Builder builder = RedisLeaseStore.builder(connectionFactory)
				.policy(policy)
				.alerts(alerts)
				.replicaAcknowledgement(redis.replicaAcknowledgement().acknowledgement())
				.failoverRecovery(redis.recovery(recoveryPrincipal(properties)))
				.connections(redis.connections());
			byte[] secret = properties.listCursorSecretBytes();
			if (secret != null) {
				builder.listCursorSecret(secret);
			}
			return builder.build();
		}

		/** The principal automatic failover recoveries are recorded under: the service's own. */
		private static String recoveryPrincipal(LeaseProperties properties) {
			String principal = properties.getOwner().servicePrincipal();
			return (principal != null && !principal.isBlank()) ? principal : "starintel-lease";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "starintel.lease.store", havingValue = "memory")
	static class MemoryStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(LeaseStore.class)
		InMemoryLeaseStore leaseStore(LeasePolicy policy) {
			logger.warn("starintel.lease.store=memory: leases are exclusive within this JVM only; "
					+ "use the redis store for more than one instance");
			return new InMemoryLeaseStore(Clock.systemUTC(), policy);
		}

	}

}
