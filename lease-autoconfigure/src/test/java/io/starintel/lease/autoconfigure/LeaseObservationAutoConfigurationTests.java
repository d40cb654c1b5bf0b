package io.starintel.lease.autoconfigure;

import java.time.Duration;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.service.DefaultLeaseOperationObservationConvention;
import io.starintel.lease.service.LeaseOperationContext;
import io.starintel.lease.service.LeaseOperationObservationConvention;
import io.starintel.lease.service.LeaseService;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;

/** The observation of every lease operation, as the auto-configured {@link LeaseService} makes it. */
class LeaseObservationAutoConfigurationTests {

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "starintel.lease.store=memory")
		.withBean(ObservationRegistry.class, () -> this.observations);

	private static void acquire(AssertableApplicationContext context) {
		LeaseService service = context.getBean(LeaseService.class);
		service.acquire(AcquireRequest
			.builder(LockIdentity.of("tenant-main", "program-a", "starintel-target", "t1", "usernamegen", "default",
					null), new LeaseOwner("prn_test", "c", "k", "i"))
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(service.newId(), service.deadline()));
	}

	@Test
	void whenObservationRegistryThenEachOperationIsObservedByOperationAndCode() {
		this.runner.run((context) -> {
			acquire(context);
			assertThat(this.observations).hasSingleObservationThat()
				.hasNameEqualTo(LeaseService.OBSERVATION)
				.hasLowCardinalityKeyValue("operation", "acquire")
				.hasLowCardinalityKeyValue("code", "lease_acquired")
				.doesNotHaveLowCardinalityKeyValueWithKey("program");
		});
	}

	@Test
	void whenProgramTagIsEnabledThenTheProgramIsALowCardinalityKey() {
		this.runner.withPropertyValues("starintel.lease.observation.program-tag=true").run((context) -> {
			acquire(context);
			assertThat(this.observations).hasSingleObservationThat().hasLowCardinalityKeyValue("program", "program-a");
		});
	}

	@Test
	void whenUserConventionThenItReplacesTheDefault() {
		LeaseOperationObservationConvention regional = new DefaultLeaseOperationObservationConvention() {

			@Override
			public KeyValues getLowCardinalityKeyValues(LeaseOperationContext context) {
				return super.getLowCardinalityKeyValues(context).and("region", "eu");
			}

		};
		this.runner.withBean(LeaseOperationObservationConvention.class, () -> regional).run((context) -> {
			acquire(context);
			assertThat(this.observations).hasSingleObservationThat().hasLowCardinalityKeyValue("region", "eu");
		});
	}

}
