package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

class FenceAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(FenceAutoConfiguration.class));

	@Test
	void whenLeaseStoreBeanThenFenceGuard() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(context).hasSingleBean(FenceGuard.class));
	}

	@Test
	void whenNoLeaseStoreThenNoFenceGuard() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(FenceGuard.class));
	}

	@Test
	void whenUserFenceGuardThenAutoConfigurationBacksOff() {
		FenceGuard mine = new FenceGuard(new InMemoryLeaseStore());
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withBean(FenceGuard.class, () -> mine)
			.run((context) -> assertThat(context.getBean(FenceGuard.class)).isSameAs(mine));
	}

	@Test
	void whenAuthorizationTimeoutSetThenGuardUsesIt() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.withPropertyValues("starintel.lease.fence.authorization-timeout=750ms")
			.run((context) -> assertThat(context.getBean(FenceGuard.class).timeout())
				.isEqualTo(Duration.ofMillis(750)));
	}

}
