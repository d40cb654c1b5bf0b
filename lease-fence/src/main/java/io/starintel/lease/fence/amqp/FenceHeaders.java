package io.starintel.lease.fence.amqp;

import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.support.AmqpHeaders;

import io.starintel.lease.fence.FenceStamp;

/**
 * The message headers of a fenced publish. Contract: every authoritative commit carries lease id, fencing token,
 * execution id and trace id; the lock key is carried only as its digest (never the raw key).
 */
public final class FenceHeaders {

	/** Fencing token (AMQP long). */
	public static final String TOKEN = "x-starintel-lease-token";

	/** Lock-key digest (unpadded base64url SHA-256, 43 characters). */
	public static final String LOCK_KEY_DIGEST = "x-starintel-lock-key-digest";

	/** Lease id. */
	public static final String LEASE_ID = "x-starintel-lease-id";

	/** Execution id. */
	public static final String EXECUTION_ID = "x-starintel-execution-id";

	/** Trace id. */
	public static final String TRACE_ID = "x-starintel-trace-id";

	/** Backend time of the publish authorization (ISO-8601). */
	public static final String ACCEPTED_AT = "x-starintel-accepted-at";

	private FenceHeaders() {
	}

	/**
	 * Whether these are the properties of a producer batch (Spring AMQP's {@code BatchingRabbitTemplate}): the
	 * {@link MessageProperties#SPRING_BATCH_FORMAT} header {@code SimpleBatchingStrategy} puts on a batch of several
	 * messages, or the {@link AmqpHeaders#BATCH_SIZE} header it leaves on the fragments a consumer debatches (which
	 * lose the first). Contract: every fenced message is authorized and stamped as its own publish; a batch is sent by
	 * whichever thread releases it, under one set of headers for all its messages, so it is never fenced: the fenced
	 * publish paths refuse it ({@code fenced_write_invalid_request}) and the consumer guard rejects it
	 * ({@code batched_message}).
	 */
	public static boolean isProducerBatch(MessageProperties properties) {
		return properties.getHeaders().containsKey(MessageProperties.SPRING_BATCH_FORMAT)
				|| properties.getHeaders().containsKey(AmqpHeaders.BATCH_SIZE);
	}

	/** Writes the stamp's headers. */
	public static void apply(MessageProperties properties, FenceStamp stamp) {
		properties.setHeader(TOKEN, stamp.fencingToken());
		properties.setHeader(LOCK_KEY_DIGEST, stamp.lockKeyDigest());
		properties.setHeader(LEASE_ID, stamp.leaseId());
		properties.setHeader(EXECUTION_ID, stamp.executionId());
		properties.setHeader(TRACE_ID, stamp.traceId());
		properties.setHeader(ACCEPTED_AT, stamp.toMap().get("accepted_at"));
	}

}
