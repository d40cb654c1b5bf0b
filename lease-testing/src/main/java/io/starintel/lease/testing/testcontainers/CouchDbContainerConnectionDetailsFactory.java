package io.starintel.lease.testing.testcontainers;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.Container;

import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

import io.starintel.lease.testing.couchdb.CouchDbConnectionDetails;

/**
 * {@link CouchDbConnectionDetails} from a {@code @ServiceConnection} {@link CouchDbContainer} (its administrator), or
 * a generic container of a {@code couchdb} / {@code apache/couchdb} image (credentials from its
 * {@code COUCHDB_USER}/{@code COUCHDB_PASSWORD} environment, none without them).
 */
class CouchDbContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, CouchDbConnectionDetails> {

	private static final List<String> NAMES = List.of("couchdb", "apache/couchdb");

	CouchDbContainerConnectionDetailsFactory() {
		super(NAMES);
	}

	@Override
	protected boolean sourceAccepts(ContainerConnectionSource<Container<?>> source, Class<?> requiredContainerType,
			Class<?> requiredConnectionDetailsType) {
		return super.sourceAccepts(source, requiredContainerType, requiredConnectionDetailsType)
				|| source.accepts(ANY_CONNECTION_NAME, CouchDbContainer.class, requiredConnectionDetailsType);
	}

	@Override
	protected CouchDbConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
		return new ContainerCouchDbConnectionDetails(source);
	}

	static final class ContainerCouchDbConnectionDetails extends ContainerConnectionDetails<Container<?>>
			implements CouchDbConnectionDetails {

		ContainerCouchDbConnectionDetails(ContainerConnectionSource<Container<?>> source) {
			super(source);
		}

		@Override
		public String url() {
			Container<?> container = getContainer();
			return "http://" + container.getHost() + ":" + container.getMappedPort(CouchDbContainer.PORT);
		}

		@Override
		public @Nullable String username() {
			Container<?> container = getContainer();
			return (container instanceof CouchDbContainer couchDb) ? couchDb.getUsername()
					: environment(container).get("COUCHDB_USER");
		}

		@Override
		public @Nullable String password() {
			Container<?> container = getContainer();
			return (container instanceof CouchDbContainer couchDb) ? couchDb.getPassword()
					: environment(container).get("COUCHDB_PASSWORD");
		}

		private static Map<String, String> environment(Container<?> container) {
			return container.getEnvMap();
		}

	}

}
