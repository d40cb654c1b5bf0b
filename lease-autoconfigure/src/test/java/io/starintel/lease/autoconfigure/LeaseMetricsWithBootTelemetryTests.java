package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.sweep.LeaseMeters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter's meters as an application gets them from Spring Boot's own observation and metrics
 * auto-configurations (no registry or observation registry declared by hand): each operation is one timer, made by
 * Boot's meter observation handler from the operation observation, with one set of tag keys; the lifecycle counters
 * sit beside it in the same registry.
 */
class LeaseMetricsWithBootTelemetryTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				LeaseStoreAutoConfiguration.class, LeaseTelemetryAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "starintel.lease.store=memory");

	@Test
	void eachOperationIsOneTimerWithOneSetOfTagKeysBesideTheLifecycleCounters() {
		this.runner.run((context) -> {
			LeaseService service = context.getBean(LeaseService.class);
			LeaseResult acquired = service.acquire(AcquireRequest
				.builder(LockIdentity.of("tenant-main", "program-a", "starintel-target", "t1", "usernamegen", "default",
						null), new LeaseOwner("prn_test", "c", "k", "i"))
				.ttl(Duration.ofSeconds(30))
				.maximumLifetime(Duration.ofMinutes(5))
				.build(service.newId(), service.deadline()));
			assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			assertThat(service.release(new ReleaseRequest(acquired.lease().handle(), service.newId(),
					service.deadline())).code()).isEqualTo(ResultCode.LEASE_RELEASED);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Timer acquire = registry.find(LeaseService.OBSERVATION)
				.tags("operation", "acquire", "code", "lease_acquired")
				.timer();
			assertThat(acquire).as("the acquire timer").isNotNull();
			assertThat(acquire.count()).isEqualTo(1);
			assertThat(registry.find(LeaseService.OBSERVATION).tags("operation", "release").timer()).isNotNull();
			Set<Set<String>> tagKeys = registry.find(LeaseService.OBSERVATION)
				.meters()
				.stream()
				.filter((meter) -> meter.getId().getType() == Meter.Type.TIMER)
				.map((meter) -> meter.getId().getTags().stream().map((tag) -> tag.getKey()).collect(Collectors.toSet()))
				.collect(Collectors.toSet());
			assertThat(tagKeys).as("one set of tag keys for every timer of the name").hasSize(1);
			// the lifecycle counters are fed by the audit pipeline, off the caller's thread
			await().atMost(Duration.ofSeconds(10)).until(() -> registry.find(LeaseMeters.GRANTED).counter() != null);
			// the pipeline's own meters for durable sinks, in the same registry (none fails here)
			assertThat(registry.find(AsyncAuditPipeline.FAILED_COUNTER).counter()).as("the failed counter")
				.isNotNull()
				.satisfies((counter) -> assertThat(counter.count()).isZero());
			assertThat(registry.find(AsyncAuditPipeline.UNCONFIRMED_GAUGE).gauge()).as("the unconfirmed gauge")
				.isNotNull()
				.satisfies((gauge) -> assertThat(gauge.value()).isZero());
		});
	}

}
