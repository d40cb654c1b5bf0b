package io.starintel.lease.worker.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.worker.internal.WorkerController;

import static io.starintel.lease.test.StartupFailureReports.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invalid {@code starintel.lease.worker-http.*} values fail start-up with the starter's one "APPLICATION FAILED TO
 * START" report naming each property (the mechanism of the core keys), never a raw exception or a silent start of an
 * API that refuses every request.
 */
class WorkerHttpPropertiesValidationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkerHttpAutoConfiguration.class, LeaseJobAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class, LeaseStoreAutoConfiguration.class))
		.withPropertyValues(WorkerHttpAutoConfigurationTests.LEASE)
		.withPropertyValues(WorkerHttpAutoConfigurationTests.CREDENTIAL)
		.withPropertyValues("starintel.lease.worker-http.enabled=true");

	@Test
	void whenValidThenStarts() {
		this.runner
			.withPropertyValues("starintel.lease.worker-http.max-body-bytes=1048576",
					"starintel.lease.worker-http.default-deadline=2m",
					"starintel.lease.worker-http.default-maximum-lifetime=24h")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(WorkerController.class));
	}

	@Test
	void everyInvalidValueOfTheGroupIsListedInOneReport() {
		this.runner
			.withPropertyValues("starintel.lease.worker-http.max-body-bytes=-1",
					"starintel.lease.worker-http.default-deadline=-1s",
					"starintel.lease.worker-http.default-maximum-lifetime=0s",
					"starintel.lease.worker-http.admission.max-in-flight=0",
					"starintel.lease.worker-http.admission.permits-per-second=0",
					"starintel.lease.worker-http.admission.burst=-1")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(6 problems)")
				.contains("starintel.lease.worker-http.max-body-bytes (-1) must be between 256 and 1048576")
				.contains("starintel.lease.worker-http.default-deadline must be a positive duration")
				.contains("starintel.lease.worker-http.default-maximum-lifetime must be a positive duration")
				.contains("starintel.lease.worker-http.admission.max-in-flight (0) must be at least 1")
				.contains("starintel.lease.worker-http.admission.permits-per-second (0.0) must be a positive number")
				.contains("starintel.lease.worker-http.admission.burst (-1) must be at least 1"));
	}

	@Test
	void theBodyBoundIsCappedFarBelowIntegerOverflow() {
		this.runner.withPropertyValues("starintel.lease.worker-http.max-body-bytes=2147483647")
			.run((context) -> assertThat(report(context.getStartupFailure()))
				.contains("starintel.lease.worker-http.max-body-bytes (2147483647) must be between 256 and 1048576"));
	}

	@Test
	void theDefaultsMustLieWithinTheLeasePolicy() {
		this.runner
			.withPropertyValues("starintel.lease.worker-http.default-deadline=3m",
					"starintel.lease.worker-http.default-maximum-lifetime=48h")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(2 problems)")
				.contains("starintel.lease.worker-http.default-deadline (3m) must not exceed "
						+ "starintel.lease.request.maximum-deadline (2m)")
				.contains("starintel.lease.worker-http.default-maximum-lifetime (2880m) must not exceed "
						+ "starintel.lease.ttl.maximum-lifetime (1440m)"));
	}

}
