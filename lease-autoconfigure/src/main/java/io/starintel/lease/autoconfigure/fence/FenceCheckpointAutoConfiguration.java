package io.starintel.lease.autoconfigure.fence;

import java.time.Clock;
import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.fence.checkpoint.CheckpointStore;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * Auto-configures the fenced {@link CheckpointStore} on Redis when the lease store is the {@link RedisLeaseStore}
 * (its script reads the lease record that store writes). Contract: job checkpoint and terminal-state writes are
 * fenced. Refused writes are counted at the {@code checkpoint} enforcement point when Micrometer is present.
 */
@AutoConfiguration(after = { FenceAutoConfiguration.class, LeaseStoreAutoConfiguration.class },
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(StringRedisTemplate.class)
@ConditionalOnBean({ RedisLeaseStore.class, StringRedisTemplate.class })
public final class FenceCheckpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(CheckpointStore.class)
	CheckpointStore checkpointStore(ObjectProvider<LeaseStore> stores, ObjectProvider<FenceRejectionMetrics> metrics) {
		RedisLeaseStore redis = RedisFenceCalls.redisStore(stores);
		if (redis == null) {
			throw new IllegalStateException("fenced checkpoints need exactly one lease store bean, a RedisLeaseStore "
					+ "or a decorator of one");
		}
		RedisCheckpointStore store = new RedisCheckpointStore(redis.fenceCalls(), Duration.ofSeconds(2),
				RedisCheckpointStore.DEFAULT_RETENTION, Clock.systemUTC());
		FenceRejectionMetrics counting = metrics.getIfAvailable();
		return (counting != null) ? new RejectionCountingCheckpointStore(store, counting) : store;
	}

}
