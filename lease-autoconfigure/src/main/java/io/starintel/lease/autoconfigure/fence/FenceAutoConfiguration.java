package io.starintel.lease.autoconfigure.fence;

import java.time.Clock;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.fence.CommitAuthorizer;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;

/**
 * Auto-configures the {@link FenceGuard} (contract: every fenced commit is authorized at backend time) when a
 * {@link LeaseStore} is present. The guard, and through it the fenced CouchDB connector, RabbitTemplate, listener
 * advice and checkpoint store, authorizes through {@link LeaseService#authorizeCommit}: the one audited store.
 */
@AutoConfiguration(after = { LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class },
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBean(LeaseStore.class)
@EnableConfigurationProperties(FenceProperties.class)
public final class FenceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FenceGuard fenceGuard(LeaseStore leaseStore, ObjectProvider<LeaseService> services, FenceProperties properties) {
		LeaseService service = services.getIfUnique();
		// the facade: the one audited store, timed and observed (rejections are audited as
		// target_lease_commit_rejected); the raw store only where Micrometer is absent and no facade exists
		CommitAuthorizer authorizer = (service != null) ? service::authorizeCommit : leaseStore::authorizeCommit;
		return new FenceGuard(authorizer, properties.authorizationTimeout(), Clock.systemUTC());
	}

	/** Counts the rejections of the publish, CouchDB and checkpoint enforcement points in Micrometer. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
	static class RejectionMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		FenceRejectionMetrics fenceRejectionMetrics(ObjectProvider<MeterRegistry> registries) {
			return new FenceRejectionMetrics(registries);
		}

	}

	/**
	 * Several {@code CouchDbConnector} beans and none primary: {@link FenceCouchDbAutoConfiguration} wraps none of
	 * them; start-up names them.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.ektorp.CouchDbConnector")
	static class UnfencedCouchDbConnectorsConfiguration {

		@Bean
		static UnfencedCouchDbConnectors unfencedCouchDbConnectors(ListableBeanFactory beans) {
			return new UnfencedCouchDbConnectors(beans);
		}

	}

	/** The guard of one enforcement point: {@code guard}, counting its rejections when Micrometer is present. */
	static FenceGuard guard(FenceGuard guard, ObjectProvider<FenceRejectionMetrics> metrics, String point) {
		FenceRejectionMetrics counting = metrics.getIfAvailable();
		return (counting != null) ? counting.guard(guard, point) : guard;
	}

}
