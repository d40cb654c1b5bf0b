package io.starintel.lease.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * An application whose {@code RedisConnectionFactory} is Jedis's (Jedis on the class path, as a user has it, and
 * {@code spring.data.redis.client-type=jedis}) fails at start-up through Spring Boot's own Redis auto-configuration,
 * with a report naming the factory class and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisClientCheckTests {

	private static final String[] REQUIRED = { "starintel.lease.tenant=tenant-main",
			"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test" };

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class))
		.withPropertyValues(REQUIRED);

	@Test
	void whenRedisClientIsJedisThenStartupFailsNamingTheFactoryAndTheFix() {
		this.runner.withPropertyValues("spring.data.redis.client-type=jedis").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new LeaseConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains(JedisConnectionFactory.class.getName())
				.contains("Lettuce only");
			assertThat(analysis.getAction()).contains("spring.data.redis.client-type=lettuce")
				.contains("starintel.lease.store=memory");
		});
	}

	@Test
	void whenRedisClientIsLettuceThenRedisStore() {
		this.runner.withPropertyValues("spring.data.redis.client-type=lettuce")
			.run((context) -> assertThat(context).hasSingleBean(LettuceConnectionFactory.class)
				.hasSingleBean(RedisLeaseStore.class));
	}

	@Test
	void whenRedisClientIsJedisAndStoreIsMemoryThenStarts() {
		this.runner.withPropertyValues("spring.data.redis.client-type=jedis", "starintel.lease.store=memory")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JedisConnectionFactory.class)
				.hasSingleBean(InMemoryLeaseStore.class));
	}

	@Test
	void whenRedisClientIsJedisThenApplicationFailedToStartReportNamesTheFactory(CapturedOutput output) {
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--spring.main.banner-mode=off",
				"--spring.data.redis.client-type=jedis", "--starintel.lease.tenant=tenant-main",
				"--starintel.lease.program=program-a", "--starintel.lease.owner.service-principal=prn_test"));
		assertThat(output.toString()).contains("APPLICATION FAILED TO START")
			.contains("RedisConnectionFactory (" + JedisConnectionFactory.class.getName() + ") is not Lettuce's")
			.contains("spring.data.redis.client-type=lettuce")
			.doesNotContain("\tat org.springframework");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class })
	static class App {

	}

}
