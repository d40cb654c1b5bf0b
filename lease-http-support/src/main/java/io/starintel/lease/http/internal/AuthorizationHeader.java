package io.starintel.lease.http.internal;

import java.util.Enumeration;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The request's credential header, the one rule both adapters apply: {@code Authorization} is a singleton field
 * (RFC 9110, not a list), so a request that sends it more than once names no credential — which one would authenticate
 * it is not for the server to guess — and is answered 401 {@code invalid_credential}, whatever the values (equal ones
 * too), in either order.
 */
public final class AuthorizationHeader {

	/** The header's name. */
	public static final String NAME = "Authorization";

	private AuthorizationHeader() {
	}

	/** The request's one {@code Authorization} value; {@code null} when it has none or more than one. */
	public static @Nullable String single(HttpServletRequest request) {
		Enumeration<String> values = request.getHeaders(NAME);
		if (values == null || !values.hasMoreElements()) {
			return null;
		}
		String value = values.nextElement();
		return values.hasMoreElements() ? null : value;
	}

	/** Whether the request sends {@code Authorization} more than once. */
	public static boolean repeated(HttpServletRequest request) {
		Enumeration<String> values = request.getHeaders(NAME);
		if (values == null || !values.hasMoreElements()) {
			return false;
		}
		values.nextElement();
		return values.hasMoreElements();
	}

}
