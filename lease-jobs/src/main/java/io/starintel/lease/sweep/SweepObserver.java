package io.starintel.lease.sweep;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.SweepResult;

/**
 * Receives what each tick of the {@link ExpirySweeper} did for one program (telemetry); must not block.
 */
public interface SweepObserver {

	/** Observes nothing. */
	SweepObserver NONE = (scope, tick) -> {
	};

	/** One program's part of one tick. */
	void tick(ProgramScope scope, Tick tick);

	/**
	 * One program's part of one tick.
	 *
	 * @param calls sweep calls made (at most the configured batches per tick)
	 * @param scanned expiry-queue entries examined
	 * @param expired leases ended as expired
	 * @param attachedKeysDeleted attached keys deleted with them
	 * @param activeLeases the program's active leases after the last successful call, {@code -1} when no call
	 * succeeded
	 * @param durationNanos wall time of this program's part of the tick
	 * @param lastStatus the status of the last call
	 * @param backlogLeft whether due leases were left for the next tick (the batch cap was reached)
	 */
	record Tick(int calls, long scanned, long expired, long attachedKeysDeleted, long activeLeases,
			long durationNanos, SweepResult.Status lastStatus, boolean backlogLeft) {
	}

}
