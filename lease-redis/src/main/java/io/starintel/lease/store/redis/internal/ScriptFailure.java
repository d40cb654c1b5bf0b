package io.starintel.lease.store.redis.internal;

import io.starintel.lease.core.Reason;

/**
 * Why a script call produced no usable reply. Internal: the store turns it into a typed result, so no Redis exception
 * crosses the store boundary.
 */
public final class ScriptFailure extends Exception {

	/** What is known about the command. */
	public enum Kind {

		/** The local deadline passed before submission: nothing was sent. */
		DEADLINE_BEFORE_SUBMISSION,
		/** The backend could not be reached, or refused the command before running it: nothing was done. */
		NOT_SUBMITTED,
		/** The command was (or may have been) run and no usable reply arrived: the outcome is unknown. */
		OUTCOME_UNKNOWN

	}

	private final Kind kind;

	private final Reason reason;

	public ScriptFailure(Kind kind, String message) {
		this(kind, defaultReason(kind), message);
	}

	public ScriptFailure(Kind kind, Reason reason, String message) {
		super(message, null, false, false);
		this.kind = kind;
		this.reason = reason;
	}

	private static Reason defaultReason(Kind kind) {
		return switch (kind) {
			case DEADLINE_BEFORE_SUBMISSION -> Reason.NONE;
			case NOT_SUBMITTED -> Reason.BACKEND_UNREACHABLE;
			case OUTCOME_UNKNOWN -> Reason.REPLY_LOST;
		};
	}

	public Kind kind() {
		return this.kind;
	}

	/** The refinement the typed result carries ({@code replicas_not_acknowledged}, {@code reply_lost}, ...). */
	public Reason reason() {
		return this.reason;
	}

}
