package io.starintel.lease.fence.amqp;

import org.springframework.amqp.AmqpException;

import io.starintel.lease.fence.FencedWriteResult;

/**
 * A publish refused by {@link FencingMessagePostProcessor} before anything was sent: an {@link AmqpException}, so
 * that the template rethrows it as is, carrying the typed result.
 */
public class FencedPublishRejectedException extends AmqpException {

	private final FencedWriteResult result;

	/** A rejection with the given typed result (the message names only its outcome and reason). */
	public FencedPublishRejectedException(FencedWriteResult result) {
		super("fenced publish refused: " + result.outcome().wireName() + " (" + result.reason().wireName() + ")");
		this.result = result;
	}

	/** The typed result of the refused publish. */
	public FencedWriteResult result() {
		return this.result;
	}

}
