package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of inspect: a canonical identity, or an opaque lease id resolved within an authorized program scope.
 * Contract: inspect never accepts a raw backend key.
 */
public record InspectRequest(ProgramScope scope, @Nullable LockIdentity identity, @Nullable String leaseId,
		String correlationId, Instant deadlineAt) {

	/** Validates that exactly one selector is present and lies inside the scope. */
	public InspectRequest {
		if (scope == null) {
			throw new InvalidLeaseRequestException("scope", "missing");
		}
		if ((identity == null) == (leaseId == null)) {
			throw new InvalidLeaseRequestException("lock_identity", "give exactly one of identity or lease_id");
		}
		if (identity != null && !identity.scope().equals(scope)) {
			throw new InvalidLeaseRequestException("lock_identity", "outside the scope");
		}
		if (leaseId != null) {
			Identifiers.require("lease_id", leaseId);
		}
		Identifiers.require("correlation_id", correlationId);
		RequestFields.requireDeadline(deadlineAt);
	}

	/** Inspect by canonical identity. */
	public static InspectRequest byIdentity(LockIdentity identity, String correlationId, Instant deadlineAt) {
		return new InspectRequest(identity.scope(), identity, null, correlationId, deadlineAt);
	}

	/** Inspect by lease id within a program scope. */
	public static InspectRequest byLeaseId(ProgramScope scope, String leaseId, String correlationId,
			Instant deadlineAt) {
		return new InspectRequest(scope, null, leaseId, correlationId, deadlineAt);
	}

}
