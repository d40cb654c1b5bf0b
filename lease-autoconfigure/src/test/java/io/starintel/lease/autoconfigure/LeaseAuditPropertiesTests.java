package io.starintel.lease.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Binding of {@link LeaseAuditProperties}: the defaults and every property. */
class LeaseAuditPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(Binding.class);

	@Test
	void whenNothingIsSetThenDefaults() {
		this.runner.run((context) -> assertThat(context.getBean(LeaseAuditProperties.class))
			.isEqualTo(new LeaseAuditProperties(true, 10_000, Duration.ofSeconds(10), LeaseAuditProperties.LogSink.AUTO,
					Duration.ofMinutes(1))));
	}

	@Test
	void whenEveryPropertyIsSetThenEachIsBound() {
		this.runner
			.withPropertyValues("starintel.lease.audit.enabled=false", "starintel.lease.audit.queue-capacity=50",
					"starintel.lease.audit.drop-log-interval=1m", "starintel.lease.audit.log-sink=off",
					"starintel.lease.audit.retry-window=30s")
			.run((context) -> assertThat(context.getBean(LeaseAuditProperties.class))
				.isEqualTo(new LeaseAuditProperties(false, 50, Duration.ofMinutes(1), LeaseAuditProperties.LogSink.OFF,
					Duration.ofSeconds(30))));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(LeaseAuditProperties.class)
	static class Binding {

	}

}
