package io.starintel.lease.core;

import java.time.Instant;
import java.util.Objects;

/**
 * One call of the expiry sweeper: end at most {@code batchLimit} leases of one program whose {@code expires_at} has
 * passed at backend time, deciding before {@code deadlineAt}.
 *
 * <p>Contract: "every call has a finite deadline_at"; the batch bound keeps each backend step short (the seed's
 * "up to 50 expirations per command").
 *
 * @param scope the program whose expiry queue is swept
 * @param batchLimit the most leases ended by this call, 1..{@value #MAX_BATCH}
 * @param deadlineAt the call's deadline (backend time)
 */
public record SweepRequest(ProgramScope scope, int batchLimit, Instant deadlineAt) {

	/** The largest batch one call may end. */
	public static final int MAX_BATCH = 1000;

	/**
	 * Checks the batch bound.
	 * @throws InvalidLeaseRequestException naming {@code batch_limit}
	 */
	public SweepRequest {
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(deadlineAt, "deadlineAt");
		if (batchLimit < 1 || batchLimit > MAX_BATCH) {
			throw new InvalidLeaseRequestException("batch_limit", "must be 1.." + MAX_BATCH);
		}
	}

}
