package io.starintel.lease.core;

import java.time.Instant;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Typed result of one lease operation.
 *
 * <p>Contract: every operation returns a typed result; backend booleans, {@code null} ambiguity and raw errors
 * do not cross the store boundary. {@code replayed} marks a result returned from an idempotency record;
 * {@code currentState} then tells the state of that lease now (a replayed acquire whose lease is terminal
 * returns the original result plus the current terminal state). {@code decidedAt} is the backend time of the
 * decision, or {@code null} when no backend decided (invalid input, unreachable backend, unknown outcome).
 * {@code detail} is a safe human hint (for invalid input: the field and the rule, never the value).
 */
public record LeaseResult(ResultCode code, Reason reason, @Nullable LeaseRecord lease, boolean replayed,
		@Nullable LeaseState currentState, @Nullable Instant decidedAt, long retryAfterMs, @Nullable String detail) {

	/** Checks presence of the code and reason. */
	public LeaseResult {
		if (code == null || reason == null) {
			throw new IllegalArgumentException("code and reason are required");
		}
	}

	/** A successful result carrying a lease. */
	public static LeaseResult success(ResultCode code, LeaseRecord lease, Instant decidedAt) {
		return new LeaseResult(code, Reason.NONE, lease, false, lease.state(), decidedAt, 0, null);
	}

	/** A failure without a lease. */
	public static LeaseResult failure(ResultCode code, Reason reason, @Nullable Instant decidedAt) {
		return new LeaseResult(code, reason, null, false, null, decidedAt, 0, null);
	}

	/** A conflict naming no owner, with a retry hint. */
	public static LeaseResult conflict(Instant decidedAt, long retryAfterMs) {
		return new LeaseResult(ResultCode.LEASE_CONFLICT, Reason.NONE, null, false, null, decidedAt, retryAfterMs, null);
	}

	/** {@code invalid_lease_request}, with the exception's message (field and rule, never the value) as detail. */
	public static LeaseResult invalid(InvalidLeaseRequestException ex) {
		return new LeaseResult(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null, false, null, null, 0,
				ex.getMessage());
	}

	/** This result as a replay of the stored original, with the lease's current state. */
	public LeaseResult asReplay(@Nullable LeaseState current) {
		return new LeaseResult(this.code, this.reason, this.lease, true, current, this.decidedAt, this.retryAfterMs,
				this.detail);
	}

	/** Whether the operation completed. */
	public boolean isSuccess() {
		return this.code.isSuccess();
	}

	/** The lease, when the result carries one. */
	public Optional<LeaseRecord> leaseIfPresent() {
		return Optional.ofNullable(this.lease);
	}

}
