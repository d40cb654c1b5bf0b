package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of list: a canonical filter, an opaque cursor from a previous page (or {@code null}), and a page size
 * that the store caps at the server maximum.
 */
public record ListRequest(ListFilter filter, @Nullable String cursor, int pageSize, String correlationId,
		Instant deadlineAt) {

	/** Maximum length of an opaque cursor. */
	public static final int MAX_CURSOR_LENGTH = 512;

	/** Validates presence and bounds. */
	public ListRequest {
		if (filter == null) {
			throw new InvalidLeaseRequestException("filter", "missing");
		}
		if (cursor != null && (cursor.isEmpty() || cursor.length() > MAX_CURSOR_LENGTH)) {
			throw new InvalidLeaseRequestException("cursor", "malformed");
		}
		if (pageSize <= 0) {
			throw new InvalidLeaseRequestException("page_size", "must be positive");
		}
		Identifiers.require("correlation_id", correlationId);
		RequestFields.requireDeadline(deadlineAt);
	}

}
