package io.starintel.lease.core;

import java.time.Instant;

/**
 * Input of renew-if-owner. Contract: renewal requires every field of the handle to match and never changes the
 * fencing token, owner, identity or maximum lifetime.
 */
public record RenewRequest(LeaseHandle handle, String requestId, Instant deadlineAt) implements MutatingRequest {

	/** Validates presence and identifiers. */
	public RenewRequest {
		Requests.requireHandle(handle);
		Identifiers.require("request_id", requestId);
		Requests.requireDeadline(deadlineAt);
	}

	@Override
	public Operation operation() {
		return Operation.RENEW;
	}

	@Override
	public LockIdentity identity() {
		return this.handle.identity();
	}

	@Override
	public String principalId() {
		return this.handle.ownerPrincipalId();
	}

	@Override
	public String digest() {
		return Requests.handleDigest(Operation.RENEW, this.handle);
	}

}
