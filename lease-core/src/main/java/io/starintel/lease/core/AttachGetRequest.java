package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of reading one attached key within a program scope (any reader of the program, not only the holder).
 *
 * <p>Contract: a key is visible only while the lease it is attached to is active at backend time; afterwards it is
 * {@code lease_not_found} ({@code attachment_not_found}), never a leftover value.
 */
public record AttachGetRequest(ProgramScope scope, String name, String correlationId, Instant deadlineAt) {

	/** Validates presence, the name rule and identifiers. */
	public AttachGetRequest {
		if (scope == null) {
			throw new InvalidLeaseRequestException("scope", "missing");
		}
		AttachedKeys.requireName(name);
		Identifiers.require("correlation_id", correlationId);
		RequestFields.requireDeadline(deadlineAt);
	}

}
