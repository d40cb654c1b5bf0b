package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of authorize-commit (the fenced-write check).
 *
 * <p>Contract: the exact lease id, owner and fencing token must be the active, unexpired record at backend time,
 * and the token must not be below the identity's durable high-water mark, which authorization raises.
 */
public record CommitRequest(LeaseHandle handle, String correlationId, Instant deadlineAt) {

	/** Validates presence and identifiers. */
	public CommitRequest {
		RequestFields.requireHandle(handle);
		Identifiers.require("correlation_id", correlationId);
		RequestFields.requireDeadline(deadlineAt);
	}

}
