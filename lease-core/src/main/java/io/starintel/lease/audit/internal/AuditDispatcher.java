package io.starintel.lease.audit.internal;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/**
 * Where the events of an {@link AuditingLeaseStore} go: routine events through the non-blocking path (when there is
 * one and no admin HTTP request is being served), the others synchronously to every sink, the durable sinks
 * confirming that the event was persisted.
 */
final class AuditDispatcher {

	private static final Logger logger = LoggerFactory.getLogger(AuditingLeaseStore.class);

	private final List<AuditSink> sinks;

	private final @Nullable AuditSink routine;

	AuditDispatcher(List<AuditSink> sinks, @Nullable AuditSink routine) {
		this.sinks = List.copyOf(sinks);
		this.routine = routine;
	}

	/** A routine event: through the non-blocking path unless an admin HTTP request is being served. */
	boolean record(AuditEvent event) {
		AuditSink routine = this.routine;
		if (routine != null && AuditContext.current() == null) {
			routine.record(event);
			return true;
		}
		return recordToSinks(event, false);
	}

	/**
	 * Sends an event to every sink (durable sinks are skipped when {@code delegateWrote}). Returns whether the event
	 * reached durable storage, or whether no durable sink is configured; non-durable sink failures are logged without
	 * detail and never fail the operation.
	 */
	boolean recordToSinks(AuditEvent event, boolean delegateWrote) {
		boolean durable = delegateWrote;
		boolean hasDurableSink = false;
		for (AuditSink sink : this.sinks) {
			if (sink.isDurable() && delegateWrote) {
				continue;
			}
			try {
				sink.record(event);
				if (sink.isDurable()) {
					hasDurableSink = true;
					durable = true;
				}
			}
			catch (RuntimeException ex) {
				if (sink.isDurable()) {
					hasDurableSink = true;
				}
				logger.warn("Audit sink {} failed for {} ({})", sink.getClass().getName(),
						event.eventType().wireName(), ex.getClass().getSimpleName());
			}
		}
		return durable || !hasDurableSink;
	}

}
