package io.starintel.lease.audit.internal;

import java.util.List;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/**
 * A sink, in the {@link AsyncAuditPipeline}, for the events no durable sink keeps: those without a program scope (a
 * request refused before any scope was known: no credentials, an unknown path) and those submitted for the
 * non-durable sinks only (an admin refusal naming a program outside the caller's scope). The auto-configuration
 * gives the log sink this role when a durable sink keeps every other routine event
 * ({@code starintel.lease.audit.log-sink=auto}): a durable stream then holds each scoped event and the log each event
 * that has no stream, so no refusal is kept nowhere but in memory.
 */
public final class UnkeptEventsSink implements AuditSink {

	private final AuditSink delegate;

	public UnkeptEventsSink(AuditSink delegate) {
		this.delegate = delegate;
	}

	/** The sink that gets the events. */
	public AuditSink delegate() {
		return this.delegate;
	}

	/** Records the event when no durable sink keeps it: it has no program scope. */
	@Override
	public void record(AuditEvent event) {
		if (event.scope() == null) {
			this.delegate.record(event);
		}
	}

	/** The events of {@code events} without a program scope, in order. */
	@Override
	public void recordAll(List<AuditEvent> events) {
		List<AuditEvent> unscoped = events.stream().filter((event) -> event.scope() == null).toList();
		if (!unscoped.isEmpty()) {
			this.delegate.recordAll(unscoped);
		}
	}

	/** Records events that no durable sink received: every one of them. */
	void recordUnkept(List<AuditEvent> events) {
		if (!events.isEmpty()) {
			this.delegate.recordAll(events);
		}
	}

}
