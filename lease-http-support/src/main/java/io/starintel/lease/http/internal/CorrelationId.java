package io.starintel.lease.http.internal;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.Identifiers;

/**
 * Correlation ids. Contract: every response includes a {@code correlation_id}; the caller's
 * {@value #HEADER} is echoed when it is a bounded identifier, otherwise a new one is generated (never an arbitrary
 * header value in a response or an audit event).
 */
public final class CorrelationId {

	/** Header carrying the caller's correlation id. */
	public static final String HEADER = "X-Correlation-Id";

	private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:@-]{1," + Identifiers.MAX_LENGTH + "}");

	private CorrelationId() {
	}

	/** The caller's header value when valid, else a new id. */
	public static String of(@Nullable String header) {
		return (header != null && ID.matcher(header).matches()) ? header : Identifiers.generate("corr");
	}

}
