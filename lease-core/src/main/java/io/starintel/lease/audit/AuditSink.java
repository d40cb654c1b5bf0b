package io.starintel.lease.audit;

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

	/** Whether this sink persists events durably (the Redis Stream sink); the log and event sinks are not. */
	default boolean isDurable() {
		return false;
	}

}
