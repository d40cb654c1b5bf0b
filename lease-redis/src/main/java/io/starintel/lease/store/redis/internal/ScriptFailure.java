package io.starintel.lease.store.redis.internal;

/**
 * Why a script call produced no reply. Internal: the store turns it into a typed result, so no Redis exception
 * crosses the store boundary.
 */
public final class ScriptFailure extends Exception {

	/** What is known about the command. */
	public enum Kind {

		/** The local deadline passed before submission: nothing was sent. */
		DEADLINE_BEFORE_SUBMISSION,
		/** The backend could not be reached: nothing was sent. */
		NOT_SUBMITTED,
		/** The command was (or may have been) sent and no usable reply arrived: the outcome is unknown. */
		OUTCOME_UNKNOWN

	}

	private final Kind kind;

	public ScriptFailure(Kind kind, String message) {
		super(message, null, false, false);
		this.kind = kind;
	}

	public Kind kind() {
		return this.kind;
	}

}
