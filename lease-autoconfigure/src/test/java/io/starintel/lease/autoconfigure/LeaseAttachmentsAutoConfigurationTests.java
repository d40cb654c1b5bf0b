package io.starintel.lease.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code starintel.lease.attachments.*}: the policy's attached-key bounds, start-up failures naming the property, and
 * {@code LeaseContext.current().attachments()} inside a {@code @TargetLeased} job (keys gone once the job's lease is
 * released).
 */
class LeaseAttachmentsAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class, LeaseJobAutoConfiguration.class))
		.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
				"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test");

	@Test
	void whenNothingIsSetThenThePolicyHasTheDefaultAttachedKeyBounds() {
		this.runner.run((context) -> {
			LeasePolicy policy = context.getBean(LeasePolicy.class);
			assertThat(policy.maximumAttachedKeys()).isEqualTo(10_000);
			assertThat(policy.maximumAttachedValueBytes()).isEqualTo(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES);
		});
	}

	@Test
	void whenBoundsAreSetThenThePolicyAndTheStoreUseThem() {
		this.runner
			.withPropertyValues("starintel.lease.attachments.maximum-keys-per-lease=2",
					"starintel.lease.attachments.maximum-value-size=1KB")
			.withUserConfiguration(Jobs.class)
			.run((context) -> {
				LeasePolicy policy = context.getBean(LeasePolicy.class);
				assertThat(policy.maximumAttachedKeys()).isEqualTo(2);
				assertThat(policy.maximumAttachedValueBytes()).isEqualTo(1024);
				List<AttachmentResult> results = context.getBean(AttachingJob.class).run("target-bounded");
				assertThat(results).extracting(AttachmentResult::code)
					.containsExactly(ResultCode.ATTACHMENT_STORED, ResultCode.ATTACHMENT_STORED,
							ResultCode.LEASE_RATE_LIMITED, ResultCode.INVALID_LEASE_REQUEST,
							ResultCode.INVALID_LEASE_REQUEST, ResultCode.ATTACHMENTS_LISTED);
				assertThat(results.get(2).reason()).isEqualTo(Reason.ATTACHED_KEY_LIMIT_REACHED);
			});
	}

	@Test
	void whenAJobEndsThenItsAttachedKeysAreGone() {
		this.runner.withUserConfiguration(Jobs.class).run((context) -> {
			List<AttachmentResult> results = context.getBean(AttachingJob.class).run("target-a");
			assertThat(results.get(5).names()).containsExactly("a", "b", "c");
			assertThat(results.get(3).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
			assertThat(results.get(3).detail()).contains("attached_key");
			LeaseService service = context.getBean(LeaseService.class);
			AttachmentResult after = service.getAttached(
					new AttachGetRequest(ProgramScope.of("tenant-main", "program-a"), "a", service.newId(),
							service.deadline()));
			assertThat(after.code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(after.reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
		});
	}

	@Test
	void whenMaximumKeysPerLeaseIsNotPositiveThenStartupFailsNamingTheProperty() {
		this.runner.withPropertyValues("starintel.lease.attachments.maximum-keys-per-lease=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.attachments.maximum-keys-per-lease"));
	}

	@Test
	void whenMaximumValueSizeIsTooLargeThenStartupFailsNamingTheProperty() {
		this.runner.withPropertyValues("starintel.lease.attachments.maximum-value-size=1GB")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("starintel.lease.attachments.maximum-value-size"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		@Bean
		AttachingJob attachingJob() {
			return new AttachingJob();
		}

	}

	/** A leased job that attaches keys through its lease context. */
	public static class AttachingJob {

		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "30s", maxLifetime = "1m")
		public List<AttachmentResult> run(String target) {
			LeaseContext.Attachments keys = LeaseContext.current().orElseThrow().attachments();
			AttachmentResult a = keys.put("a", "1");
			AttachmentResult b = keys.put("b", "2");
			AttachmentResult c = keys.put("c", "3");
			AttachmentResult badName = keys.put("a/b", "x");
			AttachmentResult large = keys.put("large", "x".repeat(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES + 1));
			return List.of(a, b, c, badName, large, keys.list());
		}

	}

}
