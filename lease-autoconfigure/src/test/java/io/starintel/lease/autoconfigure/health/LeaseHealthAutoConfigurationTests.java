package io.starintel.lease.autoconfigure.health;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/** Every condition of {@link LeaseHealthAutoConfiguration}. */
class LeaseHealthAutoConfigurationTests {

	private final ApplicationContextRunner memory = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				LeaseJobAutoConfiguration.class, LeaseHealthAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "starintel.lease.store=memory");

	@Test
	void whenHealthIsOnTheClasspathThenLeaseBackendIndicatorIsUp() {
		this.memory.run((context) -> {
			assertThat(context).hasSingleBean(LeaseHealthIndicator.class);
			assertThat(context.getBean(LeaseHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void whenBackendIsUnavailableThenHealthIsDown() {
		this.memory.withBean(LeaseStore.class, () -> new DelegatingStore() {
			@Override
			public LeaseResult inspect(InspectRequest request) {
				throw new IllegalStateException("connection refused to 10.0.0.1:6379");
			}
		}).run((context) -> {
			var health = context.getBean(LeaseHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("code", "lease_backend_unavailable");
			assertThat(health.getDetails().toString()).doesNotContain("10.0.0.1");
		});
	}

	/** Before: the AssertionError escaped {@code health()}, and Boot answered the health endpoint with a 500. */
	@Test
	void whenTheStoreThrowsAnErrorThenHealthIsDownWithATypedCode() {
		this.memory.withBean(LeaseStore.class, () -> new DelegatingStore() {
			@Override
			public LeaseResult inspect(InspectRequest request) {
				throw new AssertionError("store bug near 10.0.0.1:6379");
			}
		}).run((context) -> {
			var health = context.getBean(LeaseHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsExactly(Map.entry("code", "lease_backend_unavailable"));
		});
	}

	@Test
	void whenHealthIsAbsentThenNoIndicator() {
		this.memory.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LeaseHealthIndicator.class)
				.hasSingleBean(LeaseService.class));
	}

	@Test
	void whenHealthIndicatorIsDisabledThenNoIndicator() {
		this.memory.withPropertyValues("management.health.starintel-lease.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaseHealthIndicator.class));
	}

}
