package io.starintel.lease.fence;

import io.starintel.lease.core.Reason;

/**
 * Thrown by fenced decorators whose decorated API has no result to carry a refusal (e.g. Ektorp's
 * {@code update(Object)}, {@code RabbitTemplate.send}); carries the typed {@link FencedWriteResult}.
 *
 * <p>Contract: error reports never expose the raw lock key, another owner's identity or backend errors; the message
 * names only the outcome, reason and correlation id.
 */
public class FencedWriteRejectedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient FencedWriteResult result;

	/** A rejection carrying its typed result. */
	public FencedWriteRejectedException(FencedWriteResult result) {
		super("Fenced write refused: " + result.outcome().wireName() + " (" + result.reason().wireName()
				+ "), correlation_id=" + result.correlationId()
				+ ((result.detail() != null) ? ", detail=" + result.detail() : ""));
		this.result = result;
	}

	/** The typed result. */
	public FencedWriteResult result() {
		return this.result;
	}

	/** The typed outcome. */
	public FenceOutcome outcome() {
		return this.result.outcome();
	}

	/** The reason. */
	public Reason reason() {
		return this.result.reason();
	}

}
