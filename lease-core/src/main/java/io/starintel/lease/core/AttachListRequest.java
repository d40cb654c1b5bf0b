package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of listing the names of the keys attached to one lease, by lease id within a program scope.
 *
 * <p>Contract: the list is read at one backend instant: the complete set while the lease is active,
 * {@code lease_not_found} once it ended (never a partial set).
 */
public record AttachListRequest(ProgramScope scope, String leaseId, String correlationId, Instant deadlineAt) {

	/** Validates presence and identifiers. */
	public AttachListRequest {
		if (scope == null) {
			throw new InvalidLeaseRequestException("scope", "missing");
		}
		Identifiers.require("lease_id", leaseId);
		Identifiers.require("correlation_id", correlationId);
		RequestFields.requireDeadline(deadlineAt);
	}

}
