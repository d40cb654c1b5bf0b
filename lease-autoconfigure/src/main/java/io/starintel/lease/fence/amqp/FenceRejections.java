package io.starintel.lease.fence.amqp;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit/metric record of consumer-side rejections: one structured WARN line per rejection with
 * {@code event_type=target_lease_commit_rejected}, and a counter.
 *
 * <p>Contract: every stale or lower-token commit emits a {@code target_lease_commit_rejected} event; events carry the
 * lock-key digest, never the raw lock key.
 */
public class FenceRejections {

	/** The contract's event type. */
	public static final String EVENT_TYPE = "target_lease_commit_rejected";

	private static final Logger logger = LoggerFactory.getLogger(FenceRejections.class);

	private final AtomicLong count = new AtomicLong();

	/** Records one rejection. */
	public void rejected(String enforcementPoint, String reason, String lockKeyDigest, String token,
			String highWaterMark, String leaseId, String traceId) {
		this.count.incrementAndGet();
		logger.warn("event_type={} enforcement_point={} reason={} lock_key_digest={} fencing_token={} "
				+ "high_water_mark={} lease_id={} trace_id={}", EVENT_TYPE, enforcementPoint, reason, lockKeyDigest,
				token, highWaterMark, leaseId, traceId);
	}

	/** Number of rejections recorded by this instance. */
	public long count() {
		return this.count.get();
	}

}
