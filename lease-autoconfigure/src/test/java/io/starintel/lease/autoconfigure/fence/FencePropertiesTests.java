package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Binding of {@link FenceProperties}: the defaults (nested groups included) and every property. */
class FencePropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(Binding.class);

	@Test
	void whenNothingIsSetThenDefaults() {
		this.runner.run((context) -> {
			FenceProperties properties = context.getBean(FenceProperties.class);
			assertThat(properties.authorizationTimeout()).isEqualTo(Duration.ofSeconds(2));
			assertThat(properties.amqp().enabled()).isTrue();
			assertThat(properties.amqp().fencedExchanges()).isEmpty();
			assertThat(properties.amqp().fencedQueues()).isEmpty();
			assertThat(properties.amqp().consumer().tenantId()).isNull();
			assertThat(properties.amqp().consumer().programId()).isNull();
			assertThat(properties.amqp().consumer().requireFence()).isTrue();
			assertThat(properties.amqp().fenceUserTemplates()).isTrue();
			assertThat(properties.couchdb().installDesignDocument()).isTrue();
		});
	}

	@Test
	void whenEveryPropertyIsSetThenEachIsBound() {
		this.runner
			.withPropertyValues("starintel.lease.fence.authorization-timeout=500ms",
					"starintel.lease.fence.amqp.enabled=false", "starintel.lease.fence.amqp.fenced-exchanges=ex-a,ex-b",
					"starintel.lease.fence.amqp.fenced-queues=q-a",
					"starintel.lease.fence.amqp.consumer.tenant-id=tenant-main",
					"starintel.lease.fence.amqp.consumer.program-id=program-a",
					"starintel.lease.fence.amqp.consumer.require-fence=false",
					"starintel.lease.fence.amqp.fence-user-templates=false",
					"starintel.lease.fence.couchdb.install-design-document=false")
			.run((context) -> assertThat(context.getBean(FenceProperties.class))
				.isEqualTo(new FenceProperties(Duration.ofMillis(500),
						new FenceProperties.Amqp(false, List.of("ex-a", "ex-b"), List.of("q-a"),
								new FenceProperties.Consumer("tenant-main", "program-a", false), false),
						new FenceProperties.CouchDb(false, new FenceProperties.Recovery(null, null)))));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(FenceProperties.class)
	static class Binding {

	}

}
