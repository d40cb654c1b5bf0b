package io.starintel.lease.autoconfigure.fence;

import java.time.Clock;
import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.checkpoint.CheckpointStore;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * Auto-configures the fenced {@link CheckpointStore} on Redis when the lease store is the {@link RedisLeaseStore}
 * (its script reads the lease record that store writes), keeping each write's decision for
 * {@code starintel.lease.fence.checkpoint.retention}, each write audited through the audit pipeline. Contract: job
 * checkpoint and terminal-state writes are fenced, and every request emits an audit event. Refused writes are counted
 * at the {@code checkpoint} enforcement point when Micrometer is present.
 */
@AutoConfiguration(after = { FenceAutoConfiguration.class, LeaseStoreAutoConfiguration.class },
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(StringRedisTemplate.class)
@ConditionalOnBean({ RedisLeaseStore.class, StringRedisTemplate.class })
@EnableConfigurationProperties(FenceCheckpointProperties.class)
public final class FenceCheckpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(CheckpointStore.class)
	RedisCheckpointStore checkpointStore(ObjectProvider<LeaseStore> stores, FenceCheckpointProperties properties,
			ObjectProvider<AsyncAuditPipeline> auditPipeline, ObjectProvider<FenceRejectionMetrics> metrics) {
		RedisLeaseStore redis = RedisFenceCalls.redisStore(stores);
		if (redis == null) {
			throw new IllegalStateException("fenced checkpoints need exactly one lease store bean, a RedisLeaseStore "
					+ "or a decorator of one");
		}
		RedisCheckpointStore store = new RedisCheckpointStore(redis.fenceCalls(), Duration.ofSeconds(2),
				properties.retention(), Clock.systemUTC());
		// one audit event per checkpoint write, through the non-blocking pipeline (none when audit is disabled)
		AsyncAuditPipeline pipeline = auditPipeline.getIfAvailable();
		if (pipeline != null) {
			store.setAuditSink(pipeline::submit);
		}
		FenceRejectionMetrics counting = metrics.getIfAvailable();
		if (counting != null) {
			store.setResultListener((result) -> {
				if (result.outcome() == FenceOutcome.LEASE_LOST || result.outcome() == FenceOutcome.NO_LEASE_CONTEXT) {
					counting.rejected(FenceRejectionMetrics.CHECKPOINT, result.outcome().wireName());
				}
			});
		}
		return store;
	}

}
