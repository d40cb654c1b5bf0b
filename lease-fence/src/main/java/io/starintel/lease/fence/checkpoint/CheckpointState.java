package io.starintel.lease.fence.checkpoint;

/**
 * The state a checkpoint records: progress, a reschedule, or a terminal state of the job.
 *
 * <p>Contract: job checkpoint and terminal-state writes and scheduler completion/reschedule state are fenced.
 */
public enum CheckpointState {

	/** Work in progress. */
	IN_PROGRESS("in_progress"),
	/** The scheduler's reschedule decision. */
	RESCHEDULED("rescheduled"),
	/** Terminal: completed. */
	COMPLETED("completed"),
	/** Terminal: failed. */
	FAILED("failed");

	private final String wireName;

	CheckpointState(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name stored in Redis. */
	public String wireName() {
		return this.wireName;
	}

	/** Looks a state up by its wire name. */
	public static CheckpointState fromWireName(String wireName) {
		for (CheckpointState state : values()) {
			if (state.wireName.equals(wireName)) {
				return state;
			}
		}
		throw new IllegalArgumentException("unknown checkpoint state");
	}

}
