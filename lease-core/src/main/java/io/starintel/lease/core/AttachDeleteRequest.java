package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.RequestDigest;

/**
 * Input of deleting one attached key of the exact lease of {@code handle}.
 *
 * <p>Contract: only the holder of the lease the key is attached to deletes it ({@code lease_lost} when that lease is
 * no longer active, {@code lease_not_found} with {@code attachment_not_found} when this lease holds no such key).
 * Idempotent by request id within (operation, lock key, owner principal).
 *
 * <p>{@code caller} names who sends the delete (audit only; not compared, not part of the idempotency digest).
 */
public record AttachDeleteRequest(LeaseHandle handle, String name, String requestId, Instant deadlineAt,
		@Nullable RequestCaller caller) {

	/** Validates presence, the name rule and identifiers. */
	public AttachDeleteRequest {
		RequestFields.requireHandle(handle);
		AttachedKeys.requireName(name);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
	}

	/** A delete that does not name its caller. */
	public AttachDeleteRequest(LeaseHandle handle, String name, String requestId, Instant deadlineAt) {
		this(handle, name, requestId, deadlineAt, null);
	}

	/** This delete, sent by {@code caller} (audit only). */
	public AttachDeleteRequest withCaller(@Nullable RequestCaller caller) {
		return new AttachDeleteRequest(this.handle, this.name, this.requestId, this.deadlineAt, caller);
	}

	/** The operation scoping the idempotency record. */
	public Operation operation() {
		return Operation.ATTACH_DELETE;
	}

	/** Digest over every behaviour-affecting input. */
	public String digest() {
		return RequestDigest.of(Operation.ATTACH_DELETE, this.handle.identity().lockKey(), this.handle.leaseId(),
				this.handle.ownerPrincipalId(), this.handle.serviceInstanceId(), this.handle.fencingToken(), this.name);
	}

}
