package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;
import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of renew-if-owner. Contract: renewal requires every field of the handle to match and never changes the
 * fencing token, owner, identity or maximum lifetime.
 *
 * <p>{@code ttlMs} is an optional new TTL (keep-alive with a new TTL): when given, the store checks it against the
 * policy ({@code minimum_ttl_ms < ttl_ms <= maximum_ttl_ms}, {@link LeasePolicy#checkRenewTtl}), records it as the
 * lease's effective {@code ttl_ms} and sets {@code expires_at = min(now + ttl_ms, acquired_at +
 * maximum_lifetime_ms)}; when {@code null} the lease's current TTL is kept. A changed TTL is a changed request: it is
 * part of the idempotency digest.
 *
 * <p>{@code caller} names who sends the renewal (the acting credential id and trace, execution and job ids) for the
 * audit event only: any credential of the owner principal may renew, so the handle alone does not say which did. It
 * is not compared by the store and not part of the idempotency digest; {@code null} when the sender did not say.
 *
 * @param handle the exact holder
 * @param requestId the idempotency key
 * @param deadlineAt the request deadline
 * @param ttlMs the new TTL, or {@code null} to keep the lease's TTL
 * @param caller who sends the renewal (audit only), or {@code null}
 */
public record RenewRequest(LeaseHandle handle, String requestId, Instant deadlineAt, @Nullable Long ttlMs,
		@Nullable RequestCaller caller) implements MutatingRequest {

	/** Validates presence and identifiers. */
	public RenewRequest {
		RequestFields.requireHandle(handle);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
		if (ttlMs != null && ttlMs <= 0) {
			throw new InvalidLeaseRequestException("ttl_ms", "must be positive");
		}
	}

	/** A renewal that does not name its caller. */
	public RenewRequest(LeaseHandle handle, String requestId, Instant deadlineAt, @Nullable Long ttlMs) {
		this(handle, requestId, deadlineAt, ttlMs, null);
	}

	/** A renewal that keeps the lease's TTL. */
	public RenewRequest(LeaseHandle handle, String requestId, Instant deadlineAt) {
		this(handle, requestId, deadlineAt, null, null);
	}

	/** This renewal, sent by {@code caller} (audit only). */
	public RenewRequest withCaller(@Nullable RequestCaller caller) {
		return new RenewRequest(this.handle, this.requestId, this.deadlineAt, this.ttlMs, caller);
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

	/** The handle's fields and, only when a new TTL is asked for, that TTL (so keep-TTL digests are unchanged). */
	@Override
	public String digest() {
		if (this.ttlMs == null) {
			return RequestFields.handleDigest(Operation.RENEW, this.handle);
		}
		return RequestFields.handleFields(Operation.RENEW, this.handle).field("ttl_ms").field(this.ttlMs).digest();
	}

}
