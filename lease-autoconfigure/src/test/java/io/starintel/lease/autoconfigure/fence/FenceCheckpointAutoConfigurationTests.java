package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.fence.checkpoint.CheckpointStore;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

class FenceCheckpointAutoConfigurationTests {

	private final RedisConnectionFactory connectionFactory = mock(RedisConnectionFactory.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(FenceAutoConfiguration.class, FenceCheckpointAutoConfiguration.class))
		.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(this.connectionFactory));

	@Test
	void whenRedisLeaseStoreAndStringRedisTemplateThenCheckpointStore() {
		this.runner
			.withBean(RedisLeaseStore.class,
					() -> new RedisLeaseStore(this.connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG))
			.run((context) -> assertThat(context).hasSingleBean(CheckpointStore.class));
	}

	@Test
	void whenACheckpointWriteIsRefusedThenItIsCountedAtTheCheckpointEnforcementPoint() {
		io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
				new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
		this.runner
			.withBean(RedisLeaseStore.class,
					() -> new RedisLeaseStore(this.connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG))
			.withBean(io.micrometer.core.instrument.MeterRegistry.class, () -> registry)
			.run((context) -> {
				CheckpointStore checkpoints = context.getBean(CheckpointStore.class);
				assertThat(checkpoints
					.writeCurrent(io.starintel.lease.fence.checkpoint.CheckpointState.IN_PROGRESS, "1")
					.outcome()).isEqualTo(io.starintel.lease.fence.FenceOutcome.NO_LEASE_CONTEXT);
				assertThat(registry.get("starintel.lease.fence.rejections")
					.tag("enforcement_point", "checkpoint")
					.tag("reason", "no_lease_context")
					.counter()
					.count()).isEqualTo(1.0);
			});
	}

	@Test
	void whenNoRetentionIsSetThenDecisionsAreKeptForADay() {
		this.runner
			.withBean(RedisLeaseStore.class,
					() -> new RedisLeaseStore(this.connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG))
			.run((context) -> assertThat(context.getBean(RedisCheckpointStore.class).retention())
				.isEqualTo(Duration.ofHours(24)));
	}

	@Test
	void whenRetentionIsSetThenTheCheckpointStoreKeepsDecisionsThatLong() {
		this.runner.withPropertyValues("starintel.lease.fence.checkpoint.retention=90m")
			.withBean(RedisLeaseStore.class,
					() -> new RedisLeaseStore(this.connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG))
			.run((context) -> assertThat(context.getBean(RedisCheckpointStore.class).retention())
				.isEqualTo(Duration.ofMinutes(90)));
	}

	@Test
	void whenRetentionIsNotPositiveThenStartUpFails() {
		this.runner.withPropertyValues("starintel.lease.fence.checkpoint.retention=0s")
			.withBean(RedisLeaseStore.class,
					() -> new RedisLeaseStore(this.connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG))
			.run((context) -> assertThat(context).hasFailed());
	}

	@Test
	void whenLeaseStoreIsNotTheRedisStoreThenNoCheckpointStore() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(context).doesNotHaveBean(CheckpointStore.class));
	}

	@Test
	void whenSpringDataRedisIsMissingThenNoCheckpointStore() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(FenceCheckpointAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(StringRedisTemplate.class))
			.run((context) -> assertThat(context).doesNotHaveBean(CheckpointStore.class));
	}

	@Test
	void whenUserCheckpointStoreThenAutoConfigurationBacksOff() {
		CheckpointStore mine = mock(CheckpointStore.class);
		this.runner
			.withBean(RedisLeaseStore.class,
					() -> new RedisLeaseStore(this.connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG))
			.withBean(CheckpointStore.class, () -> mine)
			.run((context) -> assertThat(context.getBean(CheckpointStore.class)).isSameAs(mine));
	}

}
