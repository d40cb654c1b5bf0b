package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of release-if-owner. Contract: release is a compare-and-delete on the exact handle; a stale release
 * never deletes a successor lease.
 *
 * <p>{@code caller} names who sends the release (the acting credential id and trace, execution and job ids) for the
 * audit event only; it is not compared by the store and not part of the idempotency digest.
 *
 * @param handle the exact holder
 * @param requestId the idempotency key
 * @param deadlineAt the request deadline
 * @param caller who sends the release (audit only), or {@code null}
 */
public record ReleaseRequest(LeaseHandle handle, String requestId, Instant deadlineAt,
		@Nullable RequestCaller caller) implements MutatingRequest {

	/** Validates presence and identifiers. */
	public ReleaseRequest {
		RequestFields.requireHandle(handle);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
	}

	/** A release that does not name its caller. */
	public ReleaseRequest(LeaseHandle handle, String requestId, Instant deadlineAt) {
		this(handle, requestId, deadlineAt, null);
	}

	/** This release, sent by {@code caller} (audit only). */
	public ReleaseRequest withCaller(@Nullable RequestCaller caller) {
		return new ReleaseRequest(this.handle, this.requestId, this.deadlineAt, caller);
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
