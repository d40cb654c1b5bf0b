package io.starintel.lease.sample;

import java.util.Locale;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.rabbitmq.RabbitMQContainer;
import org.testcontainers.utility.DockerImageName;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.test.context.ActiveProfiles;

import io.starintel.lease.testing.AutoConfigureLeaseTest;
import io.starintel.lease.testing.testcontainers.CouchDbContainer;
import io.starintel.lease.testing.testcontainers.ValkeyContainer;

/**
 * The second way of docs/testing.md: Testcontainers. Valkey, RabbitMQ and Apache CouchDB containers with
 * {@code @ServiceConnection}; the sample's {@code sample.couchdb-url} points at
 * {@code starintel.lease.test.couchdb.url}. Skipped when no Docker engine answers.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(properties = { RealProfileLeaseScenarios.PROPERTIES, "sample.work-duration=2s",
		"starintel.lease.job.cancellation=none", "sample.couchdb-url=${starintel.lease.test.couchdb.url}" })
@ActiveProfiles("real")
@AutoConfigureLeaseTest
class TestcontainersLeaseTests extends RealProfileLeaseScenarios {

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

	/** {@code STARINTEL_<KIND>_IMAGE}; else the CI's {@code -local} image if the engine has it; else the official one. */
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
