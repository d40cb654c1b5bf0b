package io.starintel.lease.testing.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.PropertySource;

import io.starintel.lease.testing.couchdb.CouchDbConnectionDetails;

/**
 * {@code starintel.lease.test.couchdb.url}, {@code .base-url} (without credentials), {@code .username} and
 * {@code .password}, read from the single
 * {@link CouchDbConnectionDetails} bean (a {@code @ServiceConnection} CouchDB container or a Docker Compose service)
 * when a property asks for them. An application that builds its CouchDB connector from its own URL property points
 * that property here in its test, e.g. {@code consumer.couchdb-url=${starintel.lease.test.couchdb.url}}.
 * Not enumerable: it answers only these names and looks the bean up only when one is asked for.
 *
 * <p>{@code .url} carries the credentials as user info only when they read the same percent-encoded as not (only
 * {@code A-Z a-z 0-9 - . _ ~}): Ektorp's {@code StdHttpClient.Builder.url(String)} takes the user info as it is, without
 * decoding, so no URL carries a password such as {@code s3cret@home/1} to it. For such credentials {@code .url} is the
 * base URL, and {@code .username} / {@code .password} carry them ({@code Builder.username}, {@code .password}).
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
			case "url" -> (verbatim(details.username()) && verbatim(details.password())) ? details.urlWithCredentials()
					: details.url();
			case "base-url" -> details.url();
			case "username" -> details.username();
			case "password" -> details.password();
			default -> null;
		};
	}

	/** Whether the value needs no escaping in a URL's user info (so a client that does not decode it reads it). */
	private static boolean verbatim(@Nullable String value) {
		if (value == null) {
			return true;
		}
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			boolean unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
					|| c == '.' || c == '_' || c == '~';
			if (!unreserved) {
				return false;
			}
		}
		return true;
	}

}
