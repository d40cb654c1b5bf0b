package io.starintel.lease.core;

import java.time.Instant;
import java.util.Objects;
import io.starintel.lease.core.internal.Identifiers;

/**
 * The versioned logical lease record of the contract ({@code record_version} 1).
 *
 * <p>Contract: {@code renewed_at} initially equals {@code acquired_at}; {@code expires_at} never exceeds
 * {@code acquired_at + maximum_lifetime_ms}; {@code fencing_token} is immutable for the lifetime of one lease.
 * Timestamps are backend time at millisecond precision.
 */
public record LeaseRecord(LockIdentity identity, String leaseId, LeaseOwner owner, long fencingToken,
		Instant acquiredAt, Instant renewedAt, Instant expiresAt, long ttlMs, long maximumLifetimeMs,
		String executionId, String jobId, String traceId, String requestId, LeaseMetadata metadata,
		LeaseState state) {

	/** The only record version this code reads or writes. */
	public static final int RECORD_VERSION = 1;

	/** Exclusive upper bound of fencing tokens: 2^53 - 1, exact in JSON and Lua numbers. */
	public static final long MAX_FENCING_TOKEN = (1L << 53) - 1;

	/** Checks the record's invariants. */
	public LeaseRecord {
		Objects.requireNonNull(identity, "identity");
		Identifiers.require("lease_id", leaseId);
		Objects.requireNonNull(owner, "owner");
		if (fencingToken <= 0 || fencingToken >= MAX_FENCING_TOKEN) {
			throw new InvalidLeaseRequestException("fencing_token", "out of range");
		}
		Objects.requireNonNull(acquiredAt, "acquired_at");
		Objects.requireNonNull(renewedAt, "renewed_at");
		Objects.requireNonNull(expiresAt, "expires_at");
		if (renewedAt.isBefore(acquiredAt) || expiresAt.isBefore(renewedAt)) {
			throw new InvalidLeaseRequestException("expires_at", "timestamps out of order");
		}
		if (ttlMs <= 0 || maximumLifetimeMs <= 0) {
			throw new InvalidLeaseRequestException("ttl_ms", "must be positive");
		}
		if (expiresAt.isAfter(acquiredAt.plusMillis(maximumLifetimeMs))) {
			throw new InvalidLeaseRequestException("expires_at", "beyond maximum lifetime");
		}
		Identifiers.require("execution_id", executionId);
		Identifiers.require("job_id", jobId);
		Identifiers.require("trace_id", traceId);
		Identifiers.require("request_id", requestId);
		Objects.requireNonNull(metadata, "metadata");
		Objects.requireNonNull(state, "state");
	}

	/** The opaque lock key of the identity. */
	public String lockKey() {
		return this.identity.lockKey();
	}

	/** Whether this record grants authority at the given backend time: active and strictly before expiry. */
	public boolean isAuthoritativeAt(Instant backendTime) {
		return this.state == LeaseState.ACTIVE && backendTime.isBefore(this.expiresAt);
	}

	/** The latest instant the lease may ever reach: {@code acquired_at + maximum_lifetime_ms}. */
	public Instant lifetimeEnd() {
		return this.acquiredAt.plusMillis(this.maximumLifetimeMs);
	}

	/** A copy with another state (terminal transitions). */
	public LeaseRecord withState(LeaseState newState) {
		return new LeaseRecord(this.identity, this.leaseId, this.owner, this.fencingToken, this.acquiredAt,
				this.renewedAt, this.expiresAt, this.ttlMs, this.maximumLifetimeMs, this.executionId, this.jobId,
				this.traceId, this.requestId, this.metadata, newState);
	}

	/** A copy renewed at {@code now}: contract: expiry bounded by policy TTL and the original maximum lifetime. */
	public LeaseRecord renewedAt(Instant now) {
		return renewedAt(now, this.ttlMs);
	}

	/**
	 * A copy renewed at {@code now} with a new effective TTL: {@code expires_at = min(now + ttlMs, acquired_at +
	 * maximum_lifetime_ms)} (contract: never past the original maximum lifetime).
	 */
	public LeaseRecord renewedAt(Instant now, long newTtlMs) {
		Instant expiry = now.plusMillis(newTtlMs);
		if (expiry.isAfter(lifetimeEnd())) {
			expiry = lifetimeEnd();
		}
		return new LeaseRecord(this.identity, this.leaseId, this.owner, this.fencingToken, this.acquiredAt, now,
				expiry, newTtlMs, this.maximumLifetimeMs, this.executionId, this.jobId, this.traceId,
				this.requestId, this.metadata, this.state);
	}

	/** Whether the handle names exactly this lease (lock key, lease id, owner principal, instance, token). */
	public boolean isHeldBy(LeaseHandle handle) {
		return this.identity.equals(handle.identity()) && this.leaseId.equals(handle.leaseId())
				&& this.owner.principalId().equals(handle.ownerPrincipalId())
				&& this.owner.serviceInstanceId().equals(handle.serviceInstanceId())
				&& this.fencingToken == handle.fencingToken();
	}

	/** The handle a holder uses to renew, release and commit under this lease. */
	public LeaseHandle handle() {
		return new LeaseHandle(this.identity, this.leaseId, this.owner.principalId(), this.owner.serviceInstanceId(),
				this.fencingToken);
	}

}
