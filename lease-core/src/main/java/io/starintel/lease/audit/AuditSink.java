package io.starintel.lease.audit;

import java.time.Duration;
import java.util.List;

import io.starintel.lease.audit.internal.AuditWriteException;

/**
 * Receives audit events.
 *
 * <p>Contract: every request emits an audit event; high-risk force-release and revoke require durable audit before
 * the operation reports success. A sink that is {@link #isDurable() durable} throws {@link AuditWriteException} when
 * it could not persist an event, so the caller can refuse to report success; a non-durable sink never throws.
 */
@FunctionalInterface
public interface AuditSink {

	/**
	 * The structured log sink: one {@code key=value} line per event on logger {@code io.starintel.lease.audit}
	 * (INFO), never a raw key or credential; not durable (the auto-configuration's default sink).
	 */
	static AuditSink log() {
		return new LogAuditSink();
	}

	/**
	 * Records one event.
	 * @throws AuditWriteException only from a durable sink, when the event was not persisted
	 */
	void record(AuditEvent event);

	/**
	 * Records one event for a caller that waits for it at most {@code within}: the time left to its request's
	 * deadline (the admin and worker HTTP requests' store calls and the force-release and revoke decisions are
	 * audited synchronously, before the answer). A durable sink that cannot confirm the event in that time throws
	 * {@link AuditWriteException}: the event then counts as not persisted, although it may still land; it never waits
	 * longer than {@link #record} would, and sends nothing once the time is up. The default records the event as
	 * {@link #record} does (right for a sink that does not block; a durable sink should bound its wait by
	 * {@code within}). A durable sink that keeps this default is called by the library on a thread of a small pool
	 * of its own and waited for at most {@code within}: a write not done by then, or one that finds the pool's four
	 * threads all held by writes that never returned, counts as not persisted.
	 * @param within the longest wait; zero or negative when the request's deadline has passed
	 * @throws AuditWriteException only from a durable sink, when the event was not persisted in time
	 */
	default void recordWithin(AuditEvent event, Duration within) {
		record(event);
	}

	/**
	 * Records a batch of routine events, in order (the non-blocking audit pipeline hands them over in batches). The
	 * default records them one by one; a sink that can write several at once (the Redis stream sink pipelines its
	 * writes) overrides it.
	 * @throws AuditWriteException only from a durable sink, when an event was not persisted
	 */
	default void recordAll(List<AuditEvent> events) {
		for (AuditEvent event : events) {
			record(event);
		}
	}

	/** Whether this sink persists events durably (the Redis Stream sink); the log and event sinks are not. */
	default boolean isDurable() {
		return false;
	}

}
