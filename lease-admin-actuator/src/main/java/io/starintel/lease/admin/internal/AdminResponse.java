package io.starintel.lease.admin.internal;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.ResultCode;

/**
 * One HTTP answer of the admin endpoint: status, envelope JSON and the retry hint (for {@code Retry-After}).
 */
public record AdminResponse(int status, String body, long retryAfterMs) {

	/** The error envelope of a code, at the code's HTTP status. */
	public static AdminResponse error(ResultCode code, String correlationId, long retryAfterMs,
			@Nullable String detail) {
		return new AdminResponse(code.httpStatus(), AdminEnvelope.error(code, correlationId, retryAfterMs, detail),
				retryAfterMs);
	}

}
