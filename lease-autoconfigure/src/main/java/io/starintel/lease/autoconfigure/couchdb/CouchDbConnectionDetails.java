package io.starintel.lease.autoconfigure.couchdb;

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

	/**
	 * {@link #url()} with the credentials as user info, e.g. {@code http://admin:secret@localhost:5984}, percent-encoded
	 * as RFC 3986 says (every UTF-8 byte but {@code A-Z a-z 0-9 - . _ ~} as {@code %XX}: a space is {@code %20}, never
	 * {@code +}), for a client that decodes the user info. Ektorp's {@code StdHttpClient.Builder.url(String)} does
	 * not: give it {@link #url()}, {@link #username()} and {@link #password()} instead (as the auto-configuration
	 * does), which works for any password.
	 */
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
		StringBuilder encoded = new StringBuilder(value.length());
		for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
			char c = (char) (b & 0xFF);
			if (isUnreserved(c)) {
				encoded.append(c);
			}
			else {
				encoded.append('%').append(hex(b >> 4)).append(hex(b));
			}
		}
		return encoded.toString();
	}

	private static char hex(int digit) {
		return Character.toUpperCase(Character.forDigit(digit & 0xF, 16));
	}

	private static boolean isUnreserved(char c) {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
				|| c == '_' || c == '~';
	}

}
