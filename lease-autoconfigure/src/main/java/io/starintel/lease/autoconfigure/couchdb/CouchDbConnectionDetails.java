package io.starintel.lease.autoconfigure.couchdb;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Details of the CouchDB (or compatible) server the auto-configured {@code CouchDbInstance} connects to: from
 * {@code starintel.lease.couchdb.*} by default; a bean of this type (a {@code @ServiceConnection} container or a
 * Docker Compose service with lease-testing, or your own) replaces them.
 */
public interface CouchDbConnectionDetails extends ConnectionDetails {

	/** The server's base URL without credentials, e.g. {@code http://localhost:5984}. */
	String url();

	/** The user name, or {@code null} for a server without authentication. */
	@Nullable String username();

	/** The password, or {@code null}. */
	@Nullable String password();

	/** {@link #url()} with the credentials as user info, e.g. {@code http://admin:secret@localhost:5984}. */
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
