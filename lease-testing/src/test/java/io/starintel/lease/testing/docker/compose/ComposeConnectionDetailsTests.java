package io.starintel.lease.testing.docker.compose;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import io.starintel.lease.testing.couchdb.CouchDbConnectionDetails;

import static org.assertj.core.api.Assertions.assertThat;

/** The Docker Compose connection details, from running services as Boot describes them. */
class ComposeConnectionDetailsTests {

	@Test
	void aCouchDbServiceGivesItsPublishedPortAndItsAdministrator() {
		CouchDbConnectionDetails details = new CouchDbDockerComposeConnectionDetailsFactory.ComposeCouchDbConnectionDetails(
				service("couchdb:3.4.3-local", 5984, 32771,
						Map.of("COUCHDB_USER", "admin", "COUCHDB_PASSWORD", "s3cret")));
		assertThat(details.url()).isEqualTo("http://127.0.0.1:32771");
		assertThat(details.urlWithCredentials()).isEqualTo("http://admin:s3cret@127.0.0.1:32771");
	}

	@Test
	void aCouchDbServiceWithoutAnAdministratorHasNoCredentials() {
		CouchDbConnectionDetails details = new CouchDbDockerComposeConnectionDetailsFactory.ComposeCouchDbConnectionDetails(
				service("apache/couchdb:3.4", 5984, 40000, Map.of()));
		assertThat(details.username()).isNull();
		assertThat(details.urlWithCredentials()).isEqualTo("http://127.0.0.1:40000");
	}

	@Test
	void aValkeyServiceGivesBootsRedisDetails() {
		DataRedisConnectionDetails details = new ValkeyDockerComposeConnectionDetailsFactory.ComposeValkeyConnectionDetails(
				service("valkey/valkey:8", 6379, 32800, Map.of()));
		assertThat(details.getStandalone().getHost()).isEqualTo("127.0.0.1");
		assertThat(details.getStandalone().getPort()).isEqualTo(32800);
	}

	@Test
	void credentialsAreEncodedInTheUrl() {
		CouchDbConnectionDetails details = new CouchDbDockerComposeConnectionDetailsFactory.ComposeCouchDbConnectionDetails(
				service("couchdb", 5984, 1234, Map.of("COUCHDB_USER", "a@b", "COUCHDB_PASSWORD", "p:w")));
		assertThat(details.urlWithCredentials()).isEqualTo("http://a%40b:p%3Aw@127.0.0.1:1234");
	}

	private static RunningService service(String image, int port, int published, Map<String, String> env) {
		return new RunningService() {

			@Override
			public String name() {
				return "svc";
			}

			@Override
			public ImageReference image() {
				return ImageReference.of(image);
			}

			@Override
			public String host() {
				return "127.0.0.1";
			}

			@Override
			public ConnectionPorts ports() {
				return new ConnectionPorts() {

					@Override
					public int get(int containerPort) {
						if (containerPort != port) {
							throw new IllegalStateException("no mapping for " + containerPort);
						}
						return published;
					}

					@Override
					public java.util.List<Integer> getAll() {
						return java.util.List.of(published);
					}

					@Override
					public java.util.List<Integer> getAll(@Nullable String protocol) {
						return getAll();
					}

				};
			}

			@Override
			@SuppressWarnings("unchecked")
			public Map<String, @Nullable String> env() {
				return (Map<String, @Nullable String>) (Map<String, ?>) env;
			}

			@Override
			public Map<String, String> labels() {
				return Map.of();
			}

		};
	}

}
