package io.starintel.lease.worker.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.worker.internal.WorkerController;

import static io.starintel.lease.test.StartupFailureReports.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invalid {@code starintel.lease.worker-http.*} values fail start-up with the starter's one "APPLICATION FAILED TO
 * START" report naming each property (the mechanism of the core keys), never a raw exception or a silent start of an
 * API that refuses every request.
 */
class WorkerHttpPropertiesValidationTests {

	private static final String HASH = WorkerHttpAutoConfigurationTests.HASH;

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
	void everyProblemOfEveryCredentialIsListedInOneReportNamingItsIndexedProperty() {
		String first = "starintel.lease.worker-http.credentials[0].";
		String second = "starintel.lease.worker-http.credentials[1].";
		this.runner
			.withPropertyValues(first + "secret-hash=plain-secret-0", second + "principal=prn_admin",
					second + "credential-id=key_admin", second + "secret-hash={noop}noop-secret-1",
					second + "kind=administrator", second + "capabilities=targets:revoke", second + "tenant=tenant-a",
					second + "program=program-a")
			.run((context) -> {
				assertThat(context).hasFailed();
				LeaseConfigurationException failure = configurationFailure(context.getStartupFailure());
				assertThat(failure.problems()).extracting(LeaseConfigurationException.Problem::where)
					.containsExactly(first + "secret-hash", second + "kind", second + "capabilities",
							second + "secret-hash");
				assertThat(report(context.getStartupFailure())).contains("(4 problems)")
					.contains("\n    " + first + "secret-hash must be a password-encoder hash such as {bcrypt}")
					.contains("\n    " + second + "kind must be worker (administrators use the admin endpoint)")
					.contains("\n    " + second + "capabilities must each be targets:lease or targets:read, "
							+ "not targets:revoke")
					.contains("\n    " + second + "secret-hash must be a password-encoder hash such as {bcrypt}")
					.contains("Correct each credential listed under starintel.lease.worker-http.credentials")
					.doesNotContain("plain-secret-0")
					.doesNotContain("noop-secret-1");
			});
	}

	@Test
	void invalidIdsScopesAndDuplicatesOfCredentialsAreEachNamed() {
		String second = "starintel.lease.worker-http.credentials[1].";
		String third = "starintel.lease.worker-http.credentials[2].";
		this.runner
			.withPropertyValues(second + "credential-id=bad id!", second + "secret-hash=" + HASH,
					second + "tenant=bad/tenant", second + "programs=p1,p2", second + "targets=no-slash",
					second + "actors=bad actor!", third + "principal=prn_w2", third + "credential-id=key_w",
					third + "secret-hash=" + HASH, third + "tenant=tenant-a",
					third + "program=program-a")
			.run((context) -> assertThat(configurationFailure(context.getStartupFailure()).problems())
				.extracting((problem) -> problem.where() + " " + problem.what())
				.containsExactly(second + "principal must be set",
						second + "credential-id must be 1..128 characters of [A-Za-z0-9._:@-]",
						second + "tenant is not a canonical identity component: tenant_id: path/glob syntax",
						second + "program must name exactly one program",
						second + "targets must each be target_namespace/target_id",
						second + "actors must each be a canonical actor name",
						third + "credential-id (key_w) is also the credential-id of "
								+ "starintel.lease.worker-http.credentials[0]"));
	}

	private static LeaseConfigurationException configurationFailure(Throwable failure) {
		Throwable cause = failure;
		while (cause != null && !(cause instanceof LeaseConfigurationException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("a LeaseConfigurationException in %s", failure).isNotNull();
		return (LeaseConfigurationException) cause;
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
