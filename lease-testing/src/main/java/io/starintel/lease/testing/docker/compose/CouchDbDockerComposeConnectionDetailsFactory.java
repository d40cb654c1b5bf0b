package io.starintel.lease.testing.docker.compose;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

import io.starintel.lease.testing.couchdb.CouchDbConnectionDetails;

/**
 * {@link CouchDbConnectionDetails} from a Docker Compose service of a {@code couchdb} or {@code apache/couchdb}
 * image (or one labelled {@code org.springframework.boot.service-connection: couchdb}): port 5984, credentials from
 * the service's {@code COUCHDB_USER}/{@code COUCHDB_PASSWORD} environment.
 */
class CouchDbDockerComposeConnectionDetailsFactory
		extends DockerComposeConnectionDetailsFactory<CouchDbConnectionDetails> {

	private static final String[] NAMES = { "couchdb", "apache/couchdb" };

	private static final int PORT = 5984;

	CouchDbDockerComposeConnectionDetailsFactory() {
		super(NAMES);
	}

	@Override
	protected CouchDbConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
		return new ComposeCouchDbConnectionDetails(source.getRunningService());
	}

	static final class ComposeCouchDbConnectionDetails extends DockerComposeConnectionDetails
			implements CouchDbConnectionDetails {

		private final String url;

		private final @Nullable String username;

		private final @Nullable String password;

		ComposeCouchDbConnectionDetails(RunningService service) {
			super(service);
			this.url = "http://" + service.host() + ":" + service.ports().get(PORT);
			this.username = service.env().get("COUCHDB_USER");
			this.password = service.env().get("COUCHDB_PASSWORD");
		}

		@Override
		public String url() {
			return this.url;
		}

		@Override
		public @Nullable String username() {
			return this.username;
		}

		@Override
		public @Nullable String password() {
			return this.password;
		}

	}

}
