package io.starintel.lease.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.Identifiers;

/**
 * One call of the expiry sweeper: end at most {@code batchLimit} leases of one program whose {@code expires_at} has
 * passed at backend time, deciding before {@code deadlineAt}.
 *
 * <p>Contract: "every call has a finite deadline_at"; the batch bound keeps each backend step short (the seed's
 * "up to 50 expirations per command").
 *
 * <p>Sweepers on several instances share the work by program when each names itself as the {@code claimant}: a store
 * that supports claims lets one claimant at a time sweep a program, for {@code claimFor} after its last call, and
 * answers the others {@link SweepResult.Status#CLAIMED} without doing anything.
 *
 * @param scope the program whose expiry queue is swept
 * @param batchLimit the most leases ended by this call, 1..{@value #MAX_BATCH}
 * @param deadlineAt the call's deadline (backend time)
 * @param claimant the sweeper instance claiming the program ({@code null}: no claim)
 * @param claimFor how long the claim lasts after this call (ignored without a claimant)
 */
public record SweepRequest(ProgramScope scope, int batchLimit, Instant deadlineAt, @Nullable String claimant,
		Duration claimFor) {

	/** The largest batch one call may end. */
	public static final int MAX_BATCH = 1000;

	/**
	 * Checks the batch bound.
	 * @throws InvalidLeaseRequestException naming {@code batch_limit}
	 */
	public SweepRequest {
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(deadlineAt, "deadlineAt");
		Objects.requireNonNull(claimFor, "claimFor");
		if (batchLimit < 1 || batchLimit > MAX_BATCH) {
			throw new InvalidLeaseRequestException("batch_limit", "must be 1.." + MAX_BATCH);
		}
		if (claimant != null) {
			Identifiers.require("claimant", claimant);
			if (claimFor.toMillis() < 1) {
				throw new InvalidLeaseRequestException("claim_for", "must be at least 1 ms");
			}
		}
	}

	/** A call without a claim. */
	public SweepRequest(ProgramScope scope, int batchLimit, Instant deadlineAt) {
		this(scope, batchLimit, deadlineAt, null, Duration.ZERO);
	}

}
