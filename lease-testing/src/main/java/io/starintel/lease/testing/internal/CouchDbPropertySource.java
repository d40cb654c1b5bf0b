package io.starintel.lease.testing.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.PropertySource;

import io.starintel.lease.testing.couchdb.CouchDbConnectionDetails;

/**
 * {@code starintel.lease.test.couchdb.url} (with credentials, as Ektorp's {@code StdHttpClient.Builder.url} takes
 * it), {@code .base-url} (without), {@code .username} and {@code .password}, read from the single
 * {@link CouchDbConnectionDetails} bean (a {@code @ServiceConnection} CouchDB container or a Docker Compose service)
 * when a property asks for them. An application that builds its CouchDB connector from its own URL property points
 * that property here in its test, e.g. {@code consumer.couchdb-url=${starintel.lease.test.couchdb.url}}.
 * Not enumerable: it answers only these names and looks the bean up only when one is asked for.
 */
public final class CouchDbPropertySource extends PropertySource<ListableBeanFactory> {

	/** Name of this property source. */
	public static final String NAME = "starintelLeaseTestCouchDb";

	/** Prefix of the properties it answers. */
	public static final String PREFIX = "starintel.lease.test.couchdb.";

	public CouchDbPropertySource(ListableBeanFactory beans) {
		super(NAME, beans);
	}

	@Override
	public @Nullable Object getProperty(String name) {
		if (!name.startsWith(PREFIX)) {
			return null;
		}
		CouchDbConnectionDetails details = getSource().getBeanProvider(CouchDbConnectionDetails.class).getIfUnique();
		if (details == null) {
			return null;
		}
		return switch (name.substring(PREFIX.length())) {
			case "url" -> details.urlWithCredentials();
			case "base-url" -> details.url();
			case "username" -> details.username();
			case "password" -> details.password();
			default -> null;
		};
	}

}
