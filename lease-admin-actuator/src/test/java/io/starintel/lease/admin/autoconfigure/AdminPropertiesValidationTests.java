package io.starintel.lease.admin.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static io.starintel.lease.test.StartupFailureReports.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invalid {@code starintel.lease.admin.*} values fail start-up with the starter's one "APPLICATION FAILED TO START"
 * report naming each property (the mechanism of the core keys and of the admin credentials), never a raw exception
 * from a bean built from them, nor a silent start of an endpoint that refuses every request.
 */
class AdminPropertiesValidationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(TargetLeaseConsoleAutoConfigurationTests.ADMIN_AND_CONSOLE)
		.withPropertyValues("starintel.lease.tenant=t", "starintel.lease.program=p",
				"starintel.lease.owner.service-principal=prn_admin_test",
				"management.endpoints.web.exposure.include=targetleases")
		.withInitializer((context) -> context.getEnvironment().setConversionService(new ApplicationConversionService()))
		.withBean(LeaseStore.class, InMemoryLeaseStore::new)
		// the Redis stream sink is built (never connected) so that its bound is used as in a Redis deployment
		.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(new LettuceConnectionFactory()));

	@Test
	void whenValidThenStarts() {
		this.runner
			.withPropertyValues("starintel.lease.admin.max-body-bytes=1048576",
					"starintel.lease.admin.default-deadline=2m", "starintel.lease.admin.audit.stream-max-length=1")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(TargetLeaseAdminEndpoint.class)
				.hasSingleBean(RedisStreamAuditSink.class));
	}

	@Test
	void everyInvalidValueOfTheGroupIsListedInOneReport() {
		this.runner
			.withPropertyValues("starintel.lease.admin.max-body-bytes=-1", "starintel.lease.admin.default-deadline=-5s",
					"starintel.lease.admin.admission.max-in-flight=0",
					"starintel.lease.admin.admission.permits-per-second=-1",
					"starintel.lease.admin.admission.burst=0", "starintel.lease.admin.audit.stream-max-length=0")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(6 problems)")
				.contains("starintel.lease.admin.max-body-bytes (-1) must be between 256 and 1048576")
				.contains("starintel.lease.admin.default-deadline must be a positive duration")
				.contains("starintel.lease.admin.admission.max-in-flight (0) must be at least 1")
				.contains("starintel.lease.admin.admission.permits-per-second (-1.0) must be a positive number")
				.contains("starintel.lease.admin.admission.burst (0) must be at least 1")
				.contains("starintel.lease.admin.audit.stream-max-length (0) must be at least 1"));
	}

	@Test
	void eachProbedValueAloneIsNamed() {
		String[][] probes = { { "starintel.lease.admin.audit.stream-max-length=0", "audit.stream-max-length" },
				{ "starintel.lease.admin.admission.max-in-flight=0", "admission.max-in-flight" },
				{ "starintel.lease.admin.default-deadline=-5s", "default-deadline" },
				{ "starintel.lease.admin.max-body-bytes=-1", "max-body-bytes" },
				{ "starintel.lease.admin.max-body-bytes=2147483647", "max-body-bytes (2147483647) must be between" } };
		for (String[] probe : probes) {
			this.runner.withPropertyValues(probe[0])
				.run((context) -> assertThat(report(context.getStartupFailure())).contains("(1 problem)")
					.contains("starintel.lease.admin." + probe[1]));
		}
	}

	@Test
	void theDefaultDeadlineMustLieWithinTheLeasePolicy() {
		this.runner.withPropertyValues("starintel.lease.admin.default-deadline=3m")
			.run((context) -> assertThat(report(context.getStartupFailure()))
				.contains("starintel.lease.admin.default-deadline (3m) must not exceed "
						+ "starintel.lease.request.maximum-deadline (2m)"));
	}

	@Test
	void consoleBoundsAreListedTogether() {
		this.runner
			.withPropertyValues("starintel.lease.admin.console.recent-events=0",
					"starintel.lease.admin.console.scan-depth=100001")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(2 problems)")
				.contains("starintel.lease.admin.console.recent-events (0) must be between 1 and 100000")
				.contains("starintel.lease.admin.console.scan-depth (100001) must be between 1 and 100000"));
	}

}
