package io.starintel.lease.fence.amqp;

import org.springframework.amqp.AmqpRejectAndDontRequeueException;

/** A delivery the consumer guard rejected (not requeued: dead-lettered when the queue has a dead-letter exchange). */
public class FencedMessageRejectedException extends AmqpRejectAndDontRequeueException {

	private final ConsumeRejection reason;

	/** A rejection for the given typed reason (the message names only the reason). */
	public FencedMessageRejectedException(ConsumeRejection reason) {
		super("fenced message rejected: " + reason.wireName());
		this.reason = reason;
	}

	/** The typed reason. */
	public ConsumeRejection reason() {
		return this.reason;
	}

}
