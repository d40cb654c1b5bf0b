package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of release-if-owner. Contract: release is a compare-and-delete on the exact handle; a stale release
 * never deletes a successor lease.
 */
public record ReleaseRequest(LeaseHandle handle, String requestId, Instant deadlineAt) implements MutatingRequest {

	/** Validates presence and identifiers. */
	public ReleaseRequest {
		RequestFields.requireHandle(handle);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
	}

	@Override
	public Operation operation() {
		return Operation.RELEASE;
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
		return RequestFields.handleDigest(Operation.RELEASE, this.handle);
	}

}
