package io.starintel.lease.autoconfigure;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.starintel.lease.sweep.LeaseMeters;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LeaseTelemetryAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseTelemetryAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "starintel.lease.store=memory");

	@Test
	void whenAuditIsOnThenGrantsAreCountedPerProgram() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasBean("targetLeaseLifecycleMetrics");
			LockIdentity identity = LockIdentity.of("tenant-main", "program-a", "starintel-target", "t1",
					"usernamegen", "default", null);
			LeaseService service = context.getBean(LeaseService.class);
			service.acquire(AcquireRequest.builder(identity, new LeaseOwner("prn_test", "c", "k", "i"))
				.ttl(Duration.ofSeconds(30))
				.maximumLifetime(Duration.ofMinutes(5))
				.build(service.newId(), service.deadline()));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.find(LeaseMeters.GRANTED).tag("program", "program-a").counter() != null
						&& registry.get(LeaseMeters.GRANTED).counter().count() == 1);
		});
	}

	@Test
	void whenAuditIsDisabledThenNoLifecycleCounters() {
		this.runner.withPropertyValues("starintel.lease.audit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("targetLeaseLifecycleMetrics"));
	}

	@Test
	void whenMicrometerIsAbsentThenNoLifecycleCounters() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean("targetLeaseLifecycleMetrics"));
	}

	@Test
	void whenTheUserDeclaresLifecycleMetricsThenOursBacksOff() {
		AuditSink mine = LeaseMeters.lifecycle(new SimpleMeterRegistry());
		this.runner.withBean("targetLeaseLifecycleMetrics", AuditSink.class, () -> mine)
			.run((context) -> assertThat(context.getBean("targetLeaseLifecycleMetrics")).isSameAs(mine));
	}

}
