package io.starintel.lease.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import io.starintel.lease.autoconfigure.fence.FenceAutoConfiguration;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * An application with leased jobs and no lease store ({@code starintel.lease.store=redis}, the default, and no
 * {@code RedisConnectionFactory}) fails at start-up with one report naming both options, also when one of its own beans
 * needs the {@link FenceGuard} (which backs off without a store) and would otherwise be the first to fail.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseStoreCheckTests {

	private static final String[] REQUIRED = { "starintel.lease.tenant=tenant-main",
			"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test" };

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				LeaseJobAutoConfiguration.class, FenceAutoConfiguration.class))
		.withPropertyValues(REQUIRED);

	@Test
	void whenNoRedisConnectionFactoryThenStartupFailsNamingBothOptions() {
		this.runner.run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(LeaseConfigurationException.class);
			assertNamesBothOptions(context.getStartupFailure(), "redis");
		});
	}

	@Test
	void whenAnApplicationBeanNeedsTheFenceGuardThenTheReportNamesTheMissingStore() {
		this.runner.withUserConfiguration(NeedsFenceGuard.class).run((context) -> {
			assertThat(context).hasFailed();
			assertNamesBothOptions(context.getStartupFailure(), "redis");
		});
	}

	@Test
	void whenStoreIsSetExplicitlyToRedisThenTheReportShowsTheValue() {
		this.runner.withPropertyValues("starintel.lease.store=REDIS")
			.run((context) -> assertNamesBothOptions(context.getStartupFailure(), "redis"));
	}

	@Test
	void whenStoreIsNeitherRedisNorMemoryThenTheReportSaysSo() {
		this.runner.withPropertyValues("starintel.lease.store=reddis").run((context) -> {
			FailureAnalysis analysis = new LeaseConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("starintel.lease.store (reddis) must be redis or memory");
		});
	}

	@Test
	void whenStoreIsMemoryThenTheApplicationAndItsFenceGuardStart() {
		this.runner.withUserConfiguration(NeedsFenceGuard.class)
			.withPropertyValues("starintel.lease.store=memory")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(FenceGuard.class)
				.hasSingleBean(LeaseService.class));
	}

	@Test
	void whenTheApplicationDeclaresItsOwnStoreThenItStartsWithoutRedis() {
		this.runner.withUserConfiguration(NeedsFenceGuard.class)
			.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(FenceGuard.class));
	}

	@Test
	void whenStartedAsAnApplicationThenOneReportNamesTheStoreAndNotTheFenceGuard(CapturedOutput output) {
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--spring.main.banner-mode=off",
				"--starintel.lease.tenant=tenant-main", "--starintel.lease.program=program-a",
				"--starintel.lease.owner.service-principal=prn_test"));
		String out = output.toString();
		assertThat(out.split("APPLICATION FAILED TO START", -1)).hasSize(2);
		assertThat(out).contains("starintel.lease.store (redis) needs a RedisConnectionFactory bean")
			.contains("spring.data.redis.*")
			.contains("starintel.lease.store=memory")
			.doesNotContain("required a bean of type")
			.doesNotContain("\tat ");
	}

	private static void assertNamesBothOptions(Throwable failure, String store) {
		FailureAnalysis analysis = new LeaseConfigurationFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("a start-up report, not a raw stack trace").isNotNull();
		assertThat(analysis.getDescription())
			.contains("starintel.lease.store (" + store + ") needs a RedisConnectionFactory bean");
		assertThat(analysis.getAction()).contains("spring.data.redis.*")
			.contains("RedisConnectionFactory bean")
			.contains("starintel.lease.store=memory");
	}

	/** An application bean that needs the guard, as docs/testing.md shows. */
	@Configuration(proxyBeanMethods = false)
	static class NeedsFenceGuard {

		NeedsFenceGuard(FenceGuard guard) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
			LeaseJobAutoConfiguration.class, FenceAutoConfiguration.class })
	@Import(NeedsFenceGuard.class)
	static class App {

	}

}
