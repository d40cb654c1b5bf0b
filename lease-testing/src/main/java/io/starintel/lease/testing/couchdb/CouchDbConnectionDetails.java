package io.starintel.lease.testing.couchdb;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Details of a CouchDB (or compatible) server a test connects to. Spring Boot has no CouchDB service connection:
 * a {@code @ServiceConnection} {@link io.starintel.lease.testing.testcontainers.CouchDbContainer} (or a generic
 * container of a {@code couchdb} image) and a Docker Compose service of a {@code couchdb} image supply this bean;
 * the test auto-configuration exposes it as {@code starintel.lease.test.couchdb.url} (with credentials: what
 * Ektorp's {@code StdHttpClient.Builder.url(String)} takes), {@code .base-url}, {@code .username} and
 * {@code .password}, so that the application's own connector property can point there.
 */
public interface CouchDbConnectionDetails extends ConnectionDetails {

	/** The server's base URL without credentials, e.g. {@code http://localhost:32771}. */
	String url();

	/** The administrator's user name, or {@code null} for a server without authentication. */
	@Nullable String username();

	/** The administrator's password, or {@code null}. */
	@Nullable String password();

	/** {@link #url()} with the credentials as user info, e.g. {@code http://admin:secret@localhost:32771}. */
	default String urlWithCredentials() {
		String url = url();
		String username = username();
		if (username == null) {
			return url;
		}
		int scheme = url.indexOf("://");
		String password = password();
		String userInfo = encode(username) + ((password != null) ? ":" + encode(password) : "") + "@";
		return (scheme < 0) ? userInfo + url : url.substring(0, scheme + 3) + userInfo + url.substring(scheme + 3);
	}

	private static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

}
