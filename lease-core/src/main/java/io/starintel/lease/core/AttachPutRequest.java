package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.RequestDigest;

/**
 * Input of put-with-lease: store {@code value} under {@code name}, attached to the exact lease of {@code handle}.
 *
 * <p>Contract: accepted only while that lease (id, owner, instance, token) is active at backend time, else
 * {@code lease_lost}; a name attached to another lease is refused ({@code lease_conflict},
 * {@code attached_to_another_lease}) until that lease deletes it or ends; a put of a name this lease already holds
 * replaces the value. Idempotent by request id within (operation, lock key, owner principal).
 *
 * <p>{@code caller} names who sends the put (the acting credential id and trace, execution and job ids) for the audit
 * event only; it is not compared by the store and not part of the idempotency digest.
 */
public record AttachPutRequest(LeaseHandle handle, String name, String value, String requestId, Instant deadlineAt,
		@Nullable RequestCaller caller) {

	/** Validates presence, the name rule and identifiers (the value bound is policy: stores check it). */
	public AttachPutRequest {
		RequestFields.requireHandle(handle);
		AttachedKeys.requireName(name);
		if (value == null) {
			throw new InvalidLeaseRequestException("attached_value", "missing");
		}
		RequestFields.requireWellFormed("attached_value", value);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
	}

	/** A put that does not name its caller. */
	public AttachPutRequest(LeaseHandle handle, String name, String value, String requestId, Instant deadlineAt) {
		this(handle, name, value, requestId, deadlineAt, null);
	}

	/** This put, sent by {@code caller} (audit only). */
	public AttachPutRequest withCaller(@Nullable RequestCaller caller) {
		return new AttachPutRequest(this.handle, this.name, this.value, this.requestId, this.deadlineAt, caller);
	}

	/** The operation scoping the idempotency record. */
	public Operation operation() {
		return Operation.ATTACH_PUT;
	}

	/** Digest over every behaviour-affecting input (the value by its SHA-256, never as text). */
	public String digest() {
		return RequestDigest.of(Operation.ATTACH_PUT, this.handle.identity().lockKey(), this.handle.leaseId(),
				this.handle.ownerPrincipalId(), this.handle.serviceInstanceId(), this.handle.fencingToken(), this.name,
				RequestDigest.of(Operation.ATTACH_PUT, this.value));
	}

	@Override
	public String toString() {
		return "AttachPutRequest[lease=" + this.handle.leaseId() + ", requestId=" + this.requestId + "]";
	}

}
