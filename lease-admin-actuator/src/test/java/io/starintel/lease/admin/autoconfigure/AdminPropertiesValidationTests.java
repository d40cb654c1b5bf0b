package io.starintel.lease.admin.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.admin.internal.TargetLeaseAdminEndpoint;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LeaseConfigurationException;
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

	private static final String HASH = "{bcrypt}$2a$04$abcdefghijklmnopqrstuu5Jq2s9z3mG6Nf1o7tqk0b7G7gR0mE2.";

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
	void everyProblemOfEveryCredentialIsListedOnceUnderItsIndexedProperty() {
		String alice = "starintel.lease.admin.credentials[0].";
		String bob = "starintel.lease.admin.credentials[1].";
		this.runner
			.withPropertyValues(alice + "principal=prn_admin_alice", alice + "secret-hash=" + HASH,
					alice + "tenant=t", alice + "programs=p", bob + "principal=prn_admin_bob",
					bob + "credential-id=key_admin_bob", bob + "secret-hash=plain-secret-bob", bob + "kind=operator",
					bob + "capabilities=targets:read,targets:revoke", bob + "tenant=t", bob + "programs=p")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(configurationFailure(context.getStartupFailure()).problems())
					.extracting((problem) -> problem.where() + " " + problem.what())
					.containsExactly(alice + "credential-id must be set",
							bob + "secret-hash must be a password-encoder hash such as {bcrypt}$2a$10$... (plain and "
									+ "{noop} secrets are refused)",
							bob + "capabilities must not include targets:revoke unless kind is administrator");
				assertThat(report(context.getStartupFailure())).contains("(3 problems)")
					.contains("\n    " + alice + "credential-id must be set\n")
					.contains("\n    " + bob + "secret-hash must be a password-encoder hash")
					.contains("\n    " + bob + "capabilities must not include targets:revoke")
					.contains("Correct each credential listed under starintel.lease.admin.credentials")
					.doesNotContain("credentials[null]")
					.doesNotContain("credentials[key_admin_bob]")
					.doesNotContain("plain-secret-bob");
			});
	}

	@Test
	void invalidIdsScopesAndDuplicatesOfAdminCredentialsAreEachNamed() {
		String first = "starintel.lease.admin.credentials[0].";
		String second = "starintel.lease.admin.credentials[1].";
		this.runner
			.withPropertyValues(first + "principal=prn_a", first + "credential-id=key_a", first + "secret-hash=" + HASH,
					first + "kind=auditor", first + "capabilities=targets:write", first + "tenant=bad/tenant",
					first + "targets=no-slash", first + "actors=bad actor!", second + "principal=bad principal",
					second + "credential-id=key_a", second + "secret-hash=" + HASH, second + "tenant=t",
					second + "programs=p,bad/program")
			.run((context) -> assertThat(configurationFailure(context.getStartupFailure()).problems())
				.extracting((problem) -> problem.where() + " " + problem.what())
				.containsExactly(first + "kind must be worker, operator or administrator",
						first + "capabilities must each be targets:read, targets:force-release or targets:revoke, "
								+ "not targets:write",
						first + "tenant is not a canonical identity component: tenant_id: path/glob syntax",
						first + "programs must name at least one program",
						first + "actors must each be a canonical actor name",
						first + "targets must each be target_namespace/target_id",
						second + "principal must be 1..128 characters of [A-Za-z0-9._:@-]",
						second + "programs is not a canonical identity component: program_id: path/glob syntax",
						second + "credential-id (key_a) is also the credential-id of "
								+ "starintel.lease.admin.credentials[0]"));
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
