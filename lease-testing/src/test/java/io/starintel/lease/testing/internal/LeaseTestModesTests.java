package io.starintel.lease.testing.internal;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The order in which a lease test's store is decided (docs/testing.md). */
class LeaseTestModesTests {

	private final MockEnvironment environment = new MockEnvironment();

	private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();

	private boolean memory() {
		return LeaseTestModes.decide(this.environment, this.beans).memory();
	}

	@Test
	void nothingAboutRedisMeansTheInMemoryStore() {
		assertThat(memory()).isTrue();
	}

	@Test
	void aRedisConnectionDetailsBeanMeansRedis() {
		this.beans.registerBeanDefinition("redisContainerConnectionDetails",
				new RootBeanDefinition(TestDetails.class));
		assertThat(memory()).isFalse();
		assertThat(LeaseTestModes.decide(this.environment, this.beans).why())
			.contains("redisContainerConnectionDetails");
	}

	@Test
	void aConfiguredRedisEndpointMeansRedis() {
		for (String property : new String[] { "spring.data.redis.url", "spring.data.redis.host",
				"spring.data.redis.port", "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.master" }) {
			MockEnvironment environment = new MockEnvironment().withProperty(property, "x");
			assertThat(LeaseTestModes.decide(environment, this.beans).memory()).as(property).isFalse();
		}
	}

	@Test
	void theApplicationsOwnStoreSettingWinsOverDetection() {
		this.environment.setProperty("starintel.lease.store", "memory");
		this.beans.registerBeanDefinition("details", new RootBeanDefinition(TestDetails.class));
		assertThat(memory()).isTrue();
		this.environment.setProperty("starintel.lease.store", "redis");
		assertThat(memory()).isFalse();
	}

	@Test
	void theAnnotationWinsOverEverything() {
		this.environment.setProperty("spring.data.redis.url", "redis://localhost:6379");
		this.environment.setProperty("starintel.lease.test.store", "MEMORY");
		assertThat(memory()).isTrue();
		this.environment.setProperty("starintel.lease.test.store", "redis");
		assertThat(memory()).isFalse();
		this.environment.setProperty("starintel.lease.test.store", "AUTO");
		assertThat(memory()).isFalse();
	}

	@Test
	void redisForcedAgainstAMemoryApplicationFailsWithBothSettingsNamed() {
		this.environment.setProperty("starintel.lease.store", "memory");
		this.environment.setProperty("starintel.lease.test.store", "redis");
		assertThatIllegalStateException().isThrownBy(this::memory)
			.withMessageContaining("starintel.lease.test.store=redis")
			.withMessageContaining("starintel.lease.store=memory");
	}

	static class TestDetails implements DataRedisConnectionDetails {

		@Override
		public Standalone getStandalone() {
			return Standalone.of("localhost", 6379);
		}

	}

}
