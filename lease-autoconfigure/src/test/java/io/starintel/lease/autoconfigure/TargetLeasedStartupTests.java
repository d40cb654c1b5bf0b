package io.starintel.lease.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.job.internal.LeaseDurationFormat;
import io.starintel.lease.job.TargetLeased;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Start-up checks of {@code @TargetLeased} methods ({@code TargetLeaseInterceptor.startupChecks}): every misuse case
 * fails start-up with a message naming the bean, the method and the reason; durations are parsed strictly and
 * checked against the policy with the parsed value, the bounds and the properties that set them;
 * {@code starintel.lease.job.misuse=warn} starts with one WARN per method instead.
 */
@ExtendWith(OutputCaptureExtension.class)
class TargetLeasedStartupTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class, LeaseJobAutoConfiguration.class))
		.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
				"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test");

	static class PrivateJob {

		@TargetLeased(target = "#target", actor = "usernamegen")
		private void run(String target) {
		}

		public void start(String target) {
			run(target);
		}

	}

	static class FinalJob {

		@TargetLeased(target = "#target", actor = "usernamegen")
		public final void run(String target) {
		}

	}

	static class StaticJob {

		@TargetLeased(target = "#target", actor = "usernamegen")
		public static void run(String target) {
		}

	}

	static final class FinalClassJob {

		@TargetLeased(target = "#target", actor = "usernamegen")
		public void run(String target) {
		}

	}

	static class PlainJob {

		@TargetLeased(target = "#target", actor = "usernamegen")
		public void run(String target) {
		}

	}

	static class UnitlessTtlJob {

		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "5")
		public void run(String target) {
		}

	}

	static class LongTtlJob {

		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "20m", maxLifetime = "1h")
		public void run(String target) {
		}

	}

	static class LongWaitJob {

		@TargetLeased(target = "#target", actor = "usernamegen", waitFor = "2m")
		public void run(String target) {
		}

	}

	static class PrimitiveSkipJob {

		@TargetLeased(target = "#target", actor = "usernamegen")
		public int count(String target) {
			return 1;
		}

	}

	static class UnparsableTargetJob {

		@TargetLeased(target = "#id.(", actor = "usernamegen")
		public void run(String id) {
		}

	}

	static class BlankTargetJob {

		@TargetLeased(target = " ", actor = "usernamegen")
		public void run(String id) {
		}

	}

	private static String failure(Throwable startupFailure) {
		FailureAnalysis analysis = new LeaseConfigurationFailureAnalyzer().analyze(startupFailure);
		assertThat(analysis).as("analyzed by the starter's FailureAnalyzer").isNotNull();
		assertThat(analysis.getAction()).isNotBlank();
		return analysis.getDescription();
	}

	@Test
	void whenLeasedMethodIsPrivateThenStartupFailsNamingBeanAndMethod() {
		this.runner.withBean("privateJob", PrivateJob.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(LeaseConfigurationException.class);
			assertThat(failure(context.getStartupFailure()))
				.contains("bean 'privateJob' method PrivateJob.run is annotated @TargetLeased but it is private");
		});
	}

	@Test
	void whenLeasedMethodIsFinalThenStartupFailsNamingBeanAndMethod() {
		this.runner.withBean("finalJob", FinalJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure()))
				.contains("bean 'finalJob' method FinalJob.run is annotated @TargetLeased but it is final"));
	}

	@Test
	void whenLeasedMethodIsStaticThenStartupFailsNamingBeanAndMethod() {
		this.runner.withBean("staticJob", StaticJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure()))
				.contains("bean 'staticJob' method StaticJob.run is annotated @TargetLeased but it is static"));
	}

	@Test
	void whenLeasedMethodIsOnAFinalClassThenStartupFailsNamingBeanAndMethod() {
		this.runner.withBean("finalClassJob", FinalClassJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure()))
				.contains("bean 'finalClassJob' method FinalClassJob.run is annotated @TargetLeased but its class "
						+ "FinalClassJob is final"));
	}

	@Test
	void whenBeanIsNotProxiedThenStartupFailsNamingBeanAndMethod() {
		this.runner.withPropertyValues("spring.aop.auto=false")
			.withBean("plainJob", PlainJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure()))
				.contains("bean 'plainJob' method PlainJob.run is annotated @TargetLeased but the bean is not an AOP "
						+ "proxy"));
	}

	@Test
	void whenMisuseIsWarnThenStartsAndWarnsOncePerMethod(CapturedOutput output) {
		this.runner.withPropertyValues("starintel.lease.job.misuse=warn")
			.withBean("privateJob", PrivateJob.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String line = "bean 'privateJob' method PrivateJob.run is annotated @TargetLeased but it is private";
				assertThat(output.getOut()).contains(line).contains("runs WITHOUT a lease");
				assertThat(output.getOut().split(java.util.regex.Pattern.quote(line), -1)).hasSize(2);
			});
	}

	@Test
	void whenCorrectlyUsedThenStartsWithoutWarning(CapturedOutput output) {
		this.runner.withBean("plainJob", PlainJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut()).doesNotContain("@TargetLeased");
		});
	}

	@Test
	void whenTtlHasNoUnitThenStartupFailsEvenWithMisuseWarn() {
		this.runner.withPropertyValues("starintel.lease.job.misuse=warn")
			.withBean("unitlessJob", UnitlessTtlJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure()))
				.contains("bean 'unitlessJob' method UnitlessTtlJob.run @TargetLeased(ttl): \"5\" has no unit"));
	}

	@Test
	void whenTtlIsAboveMaximumThenStartupFailsWithValueBoundsAndProperties() {
		this.runner.withBean("longTtlJob", LongTtlJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure())).contains(
					"bean 'longTtlJob' method LongTtlJob.run @TargetLeased(ttl = \"20m\") parsed as 20m must satisfy "
							+ "starintel.lease.ttl.minimum (1s) < ttl <= starintel.lease.ttl.maximum (10m)"));
	}

	@Test
	void whenWaitForExceedsMaximumWaitThenStartupFailsNamingTheProperty() {
		this.runner.withBean("longWaitJob", LongWaitJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure()))
				.contains("@TargetLeased(waitFor = \"2m\") parsed as 2m must not exceed starintel.lease.request.maximum-wait "
						+ "(30s)"));
	}

	@Test
	void whenPrimitiveReturnTypeWithSkipThenStartupFails() {
		this.runner.withBean("primitiveJob", PrimitiveSkipJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure()))
				.contains("bean 'primitiveJob' method PrimitiveSkipJob.count returns int")
				.contains("onConflict = THROW"));
	}

	@Test
	void whenTheTargetExpressionDoesNotParseOrIsBlankThenStartupFailsEvenWithMisuseWarn() {
		this.runner.withPropertyValues("starintel.lease.job.misuse=warn")
			.withBean("unparsableJob", UnparsableTargetJob.class)
			.withBean("blankJob", BlankTargetJob.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(LeaseConfigurationException.class);
				assertThat(failure(context.getStartupFailure())).contains("2 problems")
					.contains("bean 'unparsableJob' method UnparsableTargetJob.run @TargetLeased(target): \"#id.(\" "
							+ "does not parse as SpEL")
					.contains("bean 'blankJob' method BlankTargetJob.run @TargetLeased(target): is blank");
			});
	}

	@Test
	void whenSeveralMethodsAreWrongThenOneFailureListsAll() {
		this.runner.withBean("privateJob", PrivateJob.class)
			.withBean("unitlessJob", UnitlessTtlJob.class)
			.run((context) -> assertThat(failure(context.getStartupFailure())).contains("2 problems")
				.contains("PrivateJob.run")
				.contains("UnitlessTtlJob.run"));
	}

	@Test
	void whenDurationIsWrittenWithUnitsThenParsedStrictly() {
		assertThat(LeaseDurationFormat.parse("1500ms")).hasMillis(1500);
		assertThat(LeaseDurationFormat.parse("30s")).hasSeconds(30);
		assertThat(LeaseDurationFormat.parse("PT5M")).hasMinutes(5);
		assertThat(LeaseDurationFormat.format(LeaseDurationFormat.parse("2h"))).isEqualTo("120m");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> LeaseDurationFormat.parse("5"))
			.withMessageContaining("has no unit");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> LeaseDurationFormat.parse("-5s"));
	}

}
