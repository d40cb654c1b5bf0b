package io.starintel.lease.sample;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code compose.yaml} is what docs/testing.md says, also where Docker Compose cannot run: a Redis-compatible
 * service labelled for Spring Boot's Redis service connection, RabbitMQ and CouchDB (with the administrator
 * lease-testing's Compose support reads), each on a random host port.
 */
class ComposeFileTests {

	@Test
	@SuppressWarnings("unchecked")
	void composeFileHasTheThreeServicesBootConnectsTo() throws Exception {
		Map<String, Object> compose;
		try (InputStream in = Files.newInputStream(Path.of("compose.yaml"))) {
			compose = new Yaml().load(in);
		}
		Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
		assertThat(services).containsOnlyKeys("valkey", "rabbitmq", "couchdb");
		assertThat((Map<String, String>) services.get("valkey").get("labels"))
			.containsEntry("org.springframework.boot.service-connection", "redis");
		assertThat((String) services.get("valkey").get("image")).contains("valkey");
		assertThat((String) services.get("rabbitmq").get("image")).contains("rabbitmq:");
		assertThat((String) services.get("couchdb").get("image")).contains("couchdb:");
		assertThat((Map<String, String>) services.get("couchdb").get("environment")).containsKeys("COUCHDB_USER",
				"COUCHDB_PASSWORD");
		for (Map<String, Object> service : services.values()) {
			assertThat((List<String>) service.get("ports")).allSatisfy((port) -> assertThat(port).doesNotContain(":"));
		}
	}

}
