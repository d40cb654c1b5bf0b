package io.starintel.lease.autoconfigure.couchdb;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.internal.PropertyProblems;

/**
 * The CouchDB connection ({@code starintel.lease.couchdb.*}): setting {@code url} (or declaring a
 * {@link CouchDbConnectionDetails} bean) auto-configures Ektorp's {@code CouchDbInstance}, and {@code database} its
 * {@code CouchDbConnector}, which the fenced connector wraps.
 *
 * @param url base URL of the CouchDB server, without credentials (e.g. http://localhost:5984)
 * @param username user name, when the server requires authentication
 * @param password password of the user
 * @param database database the auto-configured CouchDbConnector opens (no connector without it)
 * @param createDatabase whether the database is created at start-up when it does not exist
 * @param connectTimeout time to establish a connection to the server
 * @param socketTimeout time to wait for data on an established connection
 * @param maxConnections most pooled connections to the server
 */
@ConfigurationProperties("starintel.lease.couchdb")
public record LeaseCouchDbProperties(@Nullable String url, @Nullable String username, @Nullable String password,
		@Nullable String database, @DefaultValue("false") boolean createDatabase,
		@DefaultValue("1s") Duration connectTimeout, @DefaultValue("10s") Duration socketTimeout,
		@DefaultValue("20") int maxConnections) {

	/** Validates the bounds, naming each property at fault (the HTTP client takes the timeouts as int millis). */
	public LeaseCouchDbProperties {
		PropertyProblems problems = new PropertyProblems("starintel.lease.couchdb.");
		timeout(problems, "connect-timeout", connectTimeout);
		timeout(problems, "socket-timeout", socketTimeout);
		problems.between("max-connections", maxConnections, 1, 10_000);
		problems.throwIfAny("Set each property listed under starintel.lease.couchdb.*; see docs/fencing.md.");
	}

	private static void timeout(PropertyProblems problems, String key, Duration value) {
		if (problems.positive(key, value) && value.toMillis() > Integer.MAX_VALUE) {
			problems.add(key, "must be at most 24d (the HTTP client takes whole milliseconds as an int)");
		}
	}

}
