package io.starintel.lease.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;

import io.starintel.lease.service.LeaseService;
import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.sweep.ExpirySweeper;
import io.starintel.lease.sweep.LeaseMeters;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseSweeperAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				LeaseSweeperAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "starintel.lease.store=memory");

	@Test
	void whenALeaseServiceExistsThenTheSweeperRunsWithTheContext() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(ExpirySweeper.class).hasSingleBean(SmartLifecycle.class);
			assertThat(context.getBean(ExpirySweeper.class).isRunning()).isTrue();
		});
	}

	@Test
	void whenTheContextClosesThenTheSweeperStops() {
		ExpirySweeper[] sweeper = new ExpirySweeper[1];
		this.runner.run((context) -> sweeper[0] = context.getBean(ExpirySweeper.class));
		assertThat(sweeper[0].isRunning()).isFalse();
	}

	@Test
	void whenDisabledThenNoSweeper() {
		this.runner.withPropertyValues("starintel.lease.sweeper.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ExpirySweeper.class));
	}

	@Test
	void whenNoLeaseStoreThenNoSweeper() {
		this.runner.withPropertyValues("starintel.lease.store=redis")
			.run((context) -> assertThat(context).doesNotHaveBean(ExpirySweeper.class));
	}

	@Test
	void whenTheUserDeclaresASweeperThenOursBacksOff() {
		this.runner.withBean("userSweeper", ExpirySweeper.class,
				() -> ExpirySweeper
					.builder(new LeaseService(new InMemoryLeaseStore(), Clock.systemUTC(), Duration.ofSeconds(5), null,
							null))
					.programs(List.of(ProgramScope.of("t", "p")))
					.build())
			.run((context) -> assertThat(context).hasSingleBean(ExpirySweeper.class).hasBean("userSweeper"));
	}

	@Test
	void whenAMeterRegistryExistsThenTheActiveGaugeOfTheProgramIsRegistered() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("starintel.lease.sweeper.additional-programs=tenant-b/program-b")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get(LeaseMeters.ACTIVE).tag("program", "program-a").gauge()).isNotNull();
				assertThat(registry.get(LeaseMeters.ACTIVE).tag("program", "program-b").gauge()).isNotNull();
			});
	}

	@Test
	void whenABatchSizeIsOutOfBoundsThenStartUpFailsNamingTheProperty() {
		this.runner.withPropertyValues("starintel.lease.sweeper.batch-size=5000")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.sweeper.batch-size"));
	}

	@Test
	void whenAnAdditionalProgramIsNotCanonicalThenStartUpFailsNamingTheProperty() {
		this.runner.withPropertyValues("starintel.lease.sweeper.additional-programs=Tenant B/../x")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.sweeper.additional-programs"));
	}

	@Test
	void whenLimitsAreSetThenThePolicyCarriesThem() {
		this.runner
			.withPropertyValues("starintel.lease.limits.max-active-leases-per-program=7",
					"starintel.lease.limits.max-active-leases-per-program-by-tenant.tenant-x=2")
			.run((context) -> {
				LeasePolicy policy = context.getBean(LeasePolicy.class);
				assertThat(policy.maximumActiveLeases(ProgramScope.of("tenant-main", "program-a"))).isEqualTo(7);
				assertThat(policy.maximumActiveLeases(ProgramScope.of("tenant-x", "program-a"))).isEqualTo(2);
			});
	}

	@Test
	void whenNoLimitIsSetThenTheSeedsDefaultApplies() {
		this.runner.run((context) -> assertThat(context.getBean(LeasePolicy.class)
			.maximumActiveLeases(ProgramScope.of("tenant-main", "program-a")))
			.isEqualTo(ActiveLeaseLimits.DEFAULT_PER_PROGRAM));
	}

	@Test
	void whenALimitIsNotPositiveThenStartUpFailsNamingTheProperty() {
		this.runner.withPropertyValues("starintel.lease.limits.max-active-leases-per-program=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.limits.max-active-leases-per-program"));
	}

}
