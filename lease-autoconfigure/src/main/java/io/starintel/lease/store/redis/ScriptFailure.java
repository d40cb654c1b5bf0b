package io.starintel.lease.store.redis;

/**
 * Why a script call produced no reply. Internal: the store turns it into a typed result, so no Redis exception
 * crosses the store boundary.
 */
final class ScriptFailure extends Exception {

	/** What is known about the command. */
	enum Kind {

		/** The local deadline passed before submission: nothing was sent. */
		DEADLINE_BEFORE_SUBMISSION,
		/** The backend could not be reached: nothing was sent. */
		NOT_SUBMITTED,
		/** The command was (or may have been) sent and no usable reply arrived: the outcome is unknown. */
		OUTCOME_UNKNOWN

	}

	private final Kind kind;

	ScriptFailure(Kind kind, String message) {
		super(message, null, false, false);
		this.kind = kind;
	}

	Kind kind() {
		return this.kind;
	}

}
