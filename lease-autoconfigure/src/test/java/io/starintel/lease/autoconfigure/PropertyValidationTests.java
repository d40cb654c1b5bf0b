package io.starintel.lease.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.starintel.lease.autoconfigure.couchdb.LeaseCouchDbAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceCheckpointAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceCheckpointProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every invalid {@code starintel.lease.*} value of the starter's own groups fails start-up through the one mechanism
 * (a {@code LeaseConfigurationException}, reported by {@link LeaseConfigurationFailureAnalyzer}), the report naming
 * each property at fault and listing every independent problem of the group: never a raw exception from the bean
 * built from the value, never a silent start with a value that breaks every later request.
 */
class PropertyValidationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				LeaseJobAutoConfiguration.class, FenceAutoConfiguration.class,
				FenceCheckpointAutoConfiguration.class, LeaseCouchDbAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "starintel.lease.store=memory");

	@Test
	void whenValidThenStarts() {
		this.runner.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anInvalidTtlBoundHidesNoOtherTimingProblem() {
		this.runner
			.withPropertyValues("starintel.lease.ttl.minimum=-1s", "starintel.lease.request.timeout=3m",
					"starintel.lease.job.shutdown-timeout=60s")
			.run((context) -> assertThat(report(context.getStartupFailure()))
				.contains("(3 problems)")
				.contains("starintel.lease.ttl.minimum must be a positive duration")
				.contains("starintel.lease.request.timeout (3m) must not exceed starintel.lease.request.maximum-deadline (2m)")
				.contains("starintel.lease.job.shutdown-timeout (1m) must be positive and at most 25s"));
	}

	@Test
	void aListPageSizeIsBoundedFarBelowIntegerOverflow() {
		this.runner.withPropertyValues("starintel.lease.list.maximum-page-size=2000000000")
			.run((context) -> assertThat(report(context.getStartupFailure()))
				.contains("starintel.lease.list.maximum-page-size (2000000000) must be between 1 and 10000"));
		this.runner.withPropertyValues("starintel.lease.list.maximum-page-size=10000")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aPerTenantLimitKeyMustBeATenantId() {
		this.runner
			.withPropertyValues("starintel.lease.limits.max-active-leases-per-program-by-tenant.[BAD_TENANT!]=5",
					"starintel.lease.limits.max-active-leases-per-program-by-tenant.tenant-x=0")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(2 problems)")
				.contains("starintel.lease.limits.max-active-leases-per-program-by-tenant.BAD_TENANT! : the key is not "
						+ "a canonical tenant id")
				.contains("starintel.lease.limits.max-active-leases-per-program-by-tenant.tenant-x must be positive"));
		// unbracketed, as in application.properties: Spring Boot binds BAD_TENANT (dropping the '!'), still refused
		this.runner.withPropertyValues("starintel.lease.limits.max-active-leases-per-program-by-tenant.BAD_TENANT!=5")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(1 problem)")
				.contains("starintel.lease.limits.max-active-leases-per-program-by-tenant.BAD_TENANT : the key is not "
						+ "a canonical tenant id"));
	}

	@Test
	void auditValuesAreCheckedWhenTheyBindNotByThePipeline() {
		this.runner
			.withPropertyValues("starintel.lease.audit.queue-capacity=-1", "starintel.lease.audit.retry-window=-1s",
					"starintel.lease.audit.drop-log-interval=0s")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(3 problems)")
				.contains("starintel.lease.audit.queue-capacity (-1) must be at least 1")
				.contains("starintel.lease.audit.drop-log-interval must be a positive duration")
				.contains("starintel.lease.audit.retry-window must be a positive duration"));
	}

	@Test
	void fenceValuesAreCheckedWhenTheyBindNotByTheFenceGuard() {
		this.runner.withPropertyValues("starintel.lease.fence.authorization-timeout=-1s")
			.run((context) -> assertThat(report(context.getStartupFailure()))
				.contains("starintel.lease.fence.authorization-timeout must be a positive duration"));
		// the checkpoint store needs the Redis lease store: its properties are bound alone here
		new ApplicationContextRunner().withUserConfiguration(CheckpointBinding.class)
			.withPropertyValues("starintel.lease.fence.checkpoint.retention=0s")
			.run((context) -> assertThat(report(context.getStartupFailure()))
				.contains("starintel.lease.fence.checkpoint.retention must be a positive duration"));
	}

	@Test
	void couchDbValuesAreCheckedWhenTheyBind() {
		this.runner
			.withPropertyValues("starintel.lease.couchdb.url=http://localhost:1",
					"starintel.lease.couchdb.connect-timeout=-1s", "starintel.lease.couchdb.socket-timeout=30d",
					"starintel.lease.couchdb.max-connections=0")
			.run((context) -> assertThat(report(context.getStartupFailure())).contains("(3 problems)")
				.contains("starintel.lease.couchdb.connect-timeout must be a positive duration")
				.contains("starintel.lease.couchdb.socket-timeout must be at most 24d")
				.contains("starintel.lease.couchdb.max-connections (0) must be between 1 and 10000"));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(FenceCheckpointProperties.class)
	static class CheckpointBinding {

	}

	/** What Spring Boot prints: the starter's analysis of the failure (none for a raw exception). */
	private static String report(Throwable failure) {
		assertThat(failure).as("start-up fails").isNotNull();
		FailureAnalysis analysis = new LeaseConfigurationFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analyzed by the starter's failure analyzer: %s", failure).isNotNull();
		return analysis.getDescription() + "\n" + analysis.getAction();
	}

}
