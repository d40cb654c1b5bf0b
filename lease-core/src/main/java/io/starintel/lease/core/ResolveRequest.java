package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of resolve: looks up the committed result of an earlier mutating request by its idempotency key
 * (operation, lock key, principal, request id). Contract: after {@code lease_outcome_unknown} the caller resolves
 * before doing more work.
 */
public record ResolveRequest(Operation operation, LockIdentity identity, String principalId, String requestId,
		Instant deadlineAt) {

	/** Validates presence and identifiers. */
	public ResolveRequest {
		if (operation == null) {
			throw new InvalidLeaseRequestException("operation", "missing");
		}
		RequestFields.requireIdentity(identity);
		Identifiers.require("principal_id", principalId);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
	}

	/** The resolve request for an earlier mutating request. */
	public static ResolveRequest of(MutatingRequest request, Instant deadlineAt) {
		return new ResolveRequest(request.operation(), request.identity(), request.principalId(),
				request.requestId(), deadlineAt);
	}

}
