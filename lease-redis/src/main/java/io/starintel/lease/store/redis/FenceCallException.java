package io.starintel.lease.store.redis;

import io.starintel.lease.core.Reason;

/**
 * A fence function call without a usable reply: whether it may have run ({@link #outcomeUnknown()}) or certainly did
 * not ({@code deadline_exceeded} before submission, backend unavailable), and the typed reason.
 */
public final class FenceCallException extends Exception {

	/** What is known about the call. */
	public enum Kind {

		/** The deadline passed before submission: nothing was sent. */
		DEADLINE_BEFORE_SUBMISSION,
		/** Nothing was done (no connection, too few replicas, a node that refused the call unrun). */
		NOT_SUBMITTED,
		/** The call was (or may have been) run without a usable, acknowledged reply. */
		OUTCOME_UNKNOWN

	}

	private final Kind kind;

	private final Reason reason;

	/** A failure of the given kind and reason. */
	public FenceCallException(Kind kind, Reason reason, String message) {
		super(message, null, false, false);
		this.kind = kind;
		this.reason = reason;
	}

	/** What is known about the call. */
	public Kind kind() {
		return this.kind;
	}

	/** The refinement a typed result carries ({@code replicas_not_acknowledged}, {@code reply_lost}, ...). */
	public Reason reason() {
		return this.reason;
	}

	/** Whether the call may have run. */
	public boolean outcomeUnknown() {
		return this.kind == Kind.OUTCOME_UNKNOWN;
	}

}
