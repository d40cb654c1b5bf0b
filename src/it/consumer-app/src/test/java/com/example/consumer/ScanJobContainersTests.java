package com.example.consumer;

import java.util.Locale;

import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.testing.AutoConfigureLeaseTest;
import io.starintel.lease.testing.testcontainers.CouchDbContainer;
import io.starintel.lease.testing.testcontainers.ValkeyContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.rabbitmq.RabbitMQContainer;
import org.testcontainers.utility.DockerImageName;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Testcontainers mode: Valkey, RabbitMQ and Apache CouchDB containers with {@code @ServiceConnection}. The Valkey
 * connection selects the Redis lease store by itself; CouchDB reaches the application's own
 * {@code consumer.couchdb-url} through {@code starintel.lease.test.couchdb.url}. Images: {@code STARINTEL_<KIND>_IMAGE},
 * else the {@code -local} images this project's CI builds when the engine has them, else the official ones.
 * Skipped, with a line saying so, when no Docker engine answers.
 */
@ExtendWith(DockerAvailable.class)
@Testcontainers
@SpringBootTest(properties = { "CONSUMER_PROGRAM=consumer-tests", "CONSUMER_INSTANCE=instance-test",
		"CONSUMER_QUEUE=consumer.results.tests", "CONSUMER_DATABASE=consumer-tests",
		"CONSUMER_ADMIN_HASH={bcrypt}$2a$10$dXJ3SW6G7P50lGmMkkmwe.20cQQubK3.HZWzG3YB1tlRy.fqvM/BG",
		"consumer.couchdb-url=${starintel.lease.test.couchdb.url}" })
@AutoConfigureLeaseTest
class ScanJobContainersTests extends ScanJobScenarios {

	@Container
	@ServiceConnection
	static ValkeyContainer valkey = new ValkeyContainer(image("valkey", "valkey:8.0.1-local", "valkey/valkey:8"));

	@Container
	@ServiceConnection
	static RabbitMQContainer rabbit = new RabbitMQContainer(
			DockerImageName.parse(image("rabbitmq", "rabbitmq:3.10.8-local", "rabbitmq:3"))
				.asCompatibleSubstituteFor("rabbitmq"));

	@Container
	@ServiceConnection
	static CouchDbContainer couchDb = new CouchDbContainer(image("couchdb", "couchdb:3.4.3-local", "couchdb:3.4"));

	@Override
	void assertAcceptedPublish(FenceOutcome outcome) {
		assertThat(outcome).isEqualTo(FenceOutcome.ACCEPTED);
	}

	@Test
	void theValkeyServiceConnectionSelectsTheRedisStore() {
		assertThat(this.leases.isInMemory()).isFalse();
		assertThat(this.leases.store()).isInstanceOf(RedisLeaseStore.class);
	}

	static String image(String kind, String local, String official) {
		String configured = System.getenv("STARINTEL_" + kind.toUpperCase(Locale.ROOT) + "_IMAGE");
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		try {
			DockerClientFactory.instance().client().inspectImageCmd(local).exec();
			return local;
		}
		catch (RuntimeException ex) {
			return official;
		}
	}

}
