package io.starintel.lease.audit.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/**
 * Where the events of an {@link AuditingLeaseStore} go: routine events through the non-blocking path (when there is
 * one and no admin HTTP request is being served), the others synchronously to every sink, the durable sinks
 * confirming that the event was persisted. A synchronous write waits at most until the deadline of the request the
 * event is about ({@link AuditSink#recordWithin}): the caller answers at its deadline, never a command timeout later.
 * An event whose request's deadline has already passed goes through the non-blocking path instead (it is not
 * confirmed before the answer, but it is not lost).
 */
final class AuditDispatcher {

	private static final Logger logger = LoggerFactory.getLogger(AuditingLeaseStore.class);

	private final List<AuditSink> sinks;

	private final @Nullable AuditSink routine;

	private final Clock clock;

	AuditDispatcher(List<AuditSink> sinks, @Nullable AuditSink routine, Clock clock) {
		this.sinks = List.copyOf(sinks);
		this.routine = routine;
		this.clock = clock;
	}

	/**
	 * A routine event: through the non-blocking path unless an admin HTTP request is being served.
	 * @param deadlineAt the deadline of the request the event is about (a synchronous write waits at most until
	 * then); {@code null}: none
	 */
	boolean record(AuditEvent event, @Nullable Instant deadlineAt) {
		AuditSink routine = this.routine;
		if (routine != null && AuditContext.current() == null) {
			routine.record(event);
			return true;
		}
		return recordToSinks(event, false, deadlineAt);
	}

	/**
	 * Sends an event to every sink (durable sinks are skipped when {@code delegateWrote}), each waited for at most
	 * until {@code deadlineAt} when given. Returns whether the event reached durable storage, or whether no durable
	 * sink is configured; non-durable sink failures are logged without detail and never fail the operation.
	 */
	boolean recordToSinks(AuditEvent event, boolean delegateWrote, @Nullable Instant deadlineAt) {
		AuditSink routine = this.routine;
		if (routine != null && !delegateWrote && deadlineAt != null && !this.clock.instant().isBefore(deadlineAt)) {
			// the request's deadline has passed (a request refused as deadline_exceeded, or a call that used all of
			// it): no synchronous write can be confirmed in time, so the event goes to every sink through the
			// non-blocking path, after the answer, instead of failing at each durable sink and being lost
			routine.record(event);
			return !hasDurableSink();
		}
		boolean durable = delegateWrote;
		boolean hasDurableSink = false;
		for (AuditSink sink : this.sinks) {
			if (sink.isDurable() && delegateWrote) {
				continue;
			}
			try {
				if (deadlineAt != null) {
					// the time left now: an earlier sink may have used some of it
					BoundedSinkWrite.recordWithin(sink, event, Duration.between(this.clock.instant(), deadlineAt));
				}
				else {
					sink.record(event);
				}
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

	private boolean hasDurableSink() {
		for (AuditSink sink : this.sinks) {
			if (sink.isDurable()) {
				return true;
			}
		}
		return false;
	}

}
