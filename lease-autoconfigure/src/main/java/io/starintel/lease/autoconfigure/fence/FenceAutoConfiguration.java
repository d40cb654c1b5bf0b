package io.starintel.lease.autoconfigure.fence;

import java.time.Clock;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.store.LeaseStore;

/**
 * Auto-configures the {@link FenceGuard} (contract: every fenced commit is authorized at backend time) when a
 * {@link LeaseStore} is present.
 */
@AutoConfiguration(afterName = { "io.starintel.lease.autoconfigure.LeaseAutoConfiguration",
		"io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration",
		"io.starintel.lease.autoconfigure.TargetLeaseAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnBean(LeaseStore.class)
@EnableConfigurationProperties(FenceProperties.class)
public final class FenceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FenceGuard fenceGuard(LeaseStore leaseStore, FenceProperties properties) {
		return new FenceGuard(leaseStore, properties.getAuthorizationTimeout(), Clock.systemUTC());
	}

}
