package io.starintel.lease.fence.amqp.internal;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.amqp.ConsumeRejection;
import io.starintel.lease.audit.internal.AuditEventBuilder;

/**
 * The audit/metric record of consumer-side rejections: one structured WARN line per rejection with
 * {@code event_type=target_lease_commit_rejected}, an audit event of that type (handed to the non-blocking audit
 * pipeline in a Boot application, so a consumer thread never waits on a sink; or written to the given sinks), and a
 * count per reason ({@link Meter}: {@link MicrometerFenceRejectionMeter} counts in
 * {@value MicrometerFenceRejectionMeter#COUNTER}, tagged by enforcement point and reason).
 *
 * <p>Contract: every stale or lower-token commit emits a {@code target_lease_commit_rejected} event; events carry the
 * lock-key digest, never the raw lock key. A sink failure never turns a rejection into an acceptance.
 */
public class ConsumerRejectionRecorder {

	/** The contract's event type. */
	public static final String EVENT_TYPE = "target_lease_commit_rejected";

	private static final Logger logger = LoggerFactory.getLogger(ConsumerRejectionRecorder.class);

	private final AtomicLong count = new AtomicLong();

	private final @Nullable Consumer<AuditEvent> audit;

	private final @Nullable Meter meter;

	/** Counts (this instance only), logs; no audit sinks, no metrics. */
	public ConsumerRejectionRecorder() {
		this((Consumer<AuditEvent>) null, null);
	}

	/** Counts, logs, writes each event to every one of {@code sinks} on the rejecting thread, meters. */
	public ConsumerRejectionRecorder(List<AuditSink> sinks, @Nullable Meter meter) {
		this(sinks.isEmpty() ? null : toEvery(List.copyOf(sinks)), meter);
	}

	/**
	 * Counts, logs, hands each event to {@code audit} (the audit pipeline's non-blocking submit), meters through
	 * {@code meter}.
	 */
	public ConsumerRejectionRecorder(@Nullable Consumer<AuditEvent> audit, @Nullable Meter meter) {
		this.audit = audit;
		this.meter = meter;
	}

	private static Consumer<AuditEvent> toEvery(List<AuditSink> sinks) {
		return (event) -> {
			for (AuditSink sink : sinks) {
				try {
					sink.record(event);
				}
				catch (RuntimeException ex) {
					logger.warn("Fence rejection audit event not recorded by a sink, error={}",
							ex.getClass().getSimpleName());
				}
			}
		};
	}

	/** Records one rejection of a delivery by the consumer of {@code scope}. */
	public void rejected(ProgramScope scope, ConsumeRejection reason, String lockKeyDigest, long token,
			String highWaterMark, String leaseId, String traceId) {
		this.count.incrementAndGet();
		logger.warn("event_type={} enforcement_point=amqp_consume reason={} forged={} lock_key_digest={} "
				+ "fencing_token={} high_water_mark={} lease_id={} trace_id={}", EVENT_TYPE, reason.wireName(),
				reason.isForged(), lockKeyDigest, token, highWaterMark, leaseId, traceId);
		if (this.meter != null) {
			try {
				this.meter.rejected("amqp_consume", reason);
			}
			catch (RuntimeException ex) {
				logger.debug("Fence rejection not metered: {}", ex.getClass().getSimpleName());
			}
		}
		Consumer<AuditEvent> audit = this.audit;
		if (audit == null) {
			return;
		}
		Instant now = Instant.now();
		AuditEvent event = new AuditEventBuilder(AuditEventType.COMMIT_REJECTED, ResultCode.LEASE_LOST)
			.time(now, now)
			.scope(scope)
			.lease("invalid".equals(leaseId) ? null : leaseId, (token > 0) ? token : null)
			.execution("invalid".equals(traceId) ? null : traceId, null, null)
			.reason("amqp_consume:" + reason.wireName())
			.build();
		try {
			audit.accept(event);
		}
		catch (RuntimeException ex) {
			logger.warn("Fence rejection audit event not recorded, error={}", ex.getClass().getSimpleName());
		}
	}

	/** Number of rejections recorded by this instance. */
	public long count() {
		return this.count.get();
	}

	/** Counts rejections in a metrics system. */
	@FunctionalInterface
	public interface Meter {

		/** One rejection at an enforcement point for a reason. */
		void rejected(String enforcementPoint, ConsumeRejection reason);

	}

}
