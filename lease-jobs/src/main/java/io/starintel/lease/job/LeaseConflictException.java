package io.starintel.lease.job;

import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * Thrown by a {@link ConflictPolicy#THROW} method when another holder has the lease ({@code lease_conflict}); the
 * method did not run. Carries no owner identity (contract: errors never expose another owner).
 */
public class LeaseConflictException extends LeaseAcquisitionException {

	private final long retryAfterMs;

	/** A conflict with a retry hint. */
	public LeaseConflictException(String actor, long retryAfterMs) {
		super(ResultCode.LEASE_CONFLICT, Reason.NONE,
				"Target lease is unavailable (actor " + actor + ")");
		this.retryAfterMs = retryAfterMs;
	}

	/** The store's hint of when a retry may succeed, in milliseconds (0 when unknown). */
	public long retryAfterMs() {
		return this.retryAfterMs;
	}

}
