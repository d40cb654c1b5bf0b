package io.starintel.lease.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one sweep call did: the leases it reports as {@code expired} (each reported by exactly this call: the backend
 * re-checked every queue entry against the stored record, or popped the lease from the program's expired outbox, in
 * the same atomic step), how many entries it looked at, whether more are due, and the program's active-lease count
 * after the call.
 *
 * @param status the typed outcome of the call
 * @param expired the records this call reports, in state {@code expired} (empty unless {@link Status#SWEPT})
 * @param scanned expiry-queue entries examined (ended, re-queued after a renewal, or dropped as stale)
 * @param attachedKeysDeleted attached keys deleted with the ended leases (0 while the store has no attached keys)
 * @param more whether due entries remain after this call (the caller may sweep again at once)
 * @param activeLeases active, unexpired leases of the program after the call ({@code -1} when unknown)
 * @param decidedAt backend time of the decision, {@code null} when no backend decided
 * @param nextDueAt the earliest expiry still queued after the call ({@code null}: none, or unknown): when the program
 * needs its next sweep
 */
public record SweepResult(Status status, List<LeaseRecord> expired, int scanned, long attachedKeysDeleted,
		boolean more, long activeLeases, @Nullable Instant decidedAt, @Nullable Instant nextDueAt) {

	/** The outcome of a sweep call. */
	public enum Status {

		/** The call ran at backend time; {@link #expired()} lists what it ended. */
		SWEPT,
		/** The deadline passed before the backend decided; nothing was changed. */
		DEADLINE_EXCEEDED,
		/** The backend could not be reached; nothing was changed. */
		BACKEND_UNAVAILABLE,
		/**
		 * The call was submitted but no reply arrived in time: leases may have been ended without being reported
		 * (their terminal evidence exists; their audit event is not emitted). Sweeping again is always safe.
		 */
		OUTCOME_UNKNOWN,
		/** The store has no sweep operation: expired leases end when an operation next touches them. */
		NOT_SUPPORTED,
		/** Another claimant sweeps this program ({@link SweepRequest#claimant()}); nothing was done. */
		CLAIMED

	}

	/** Copies the list. */
	public SweepResult {
		expired = List.copyOf(expired);
	}

	/** A call that ended nothing, with a failure status. */
	public static SweepResult failure(Status status, @Nullable Instant decidedAt) {
		return new SweepResult(status, List.of(), 0, 0, false, -1, decidedAt, null);
	}

	/** Whether the call ran at backend time. */
	public boolean isSwept() {
		return this.status == Status.SWEPT;
	}

}
