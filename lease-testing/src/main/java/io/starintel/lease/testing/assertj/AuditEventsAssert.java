package io.starintel.lease.testing.assertj;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

import org.assertj.core.api.AbstractObjectAssert;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.testing.CapturedAuditEvents;

/**
 * Assertions on the captured audit events. Audit delivery is asynchronous, so the positive assertions wait (up to
 * {@link CapturedAuditEvents#DEFAULT_WAIT}, or {@link #within(Duration)}) for the expected event.
 */
public class AuditEventsAssert extends AbstractObjectAssert<AuditEventsAssert, CapturedAuditEvents> {

	private Duration wait = CapturedAuditEvents.DEFAULT_WAIT;

	AuditEventsAssert(CapturedAuditEvents actual) {
		super(actual, AuditEventsAssert.class);
	}

	/** How long the following assertions wait for an expected event. */
	public AuditEventsAssert within(Duration wait) {
		this.wait = wait;
		return this;
	}

	/** Verifies that an event of {@code type} was emitted. */
	public AuditEventsAssert hasEventOfType(AuditEventType type) {
		return hasEventMatching((event) -> event.eventType() == type, "an event of type " + type.wireName());
	}

	/** Verifies that an event of {@code type} was emitted for {@code targetId}. */
	public AuditEventsAssert hasEvent(AuditEventType type, String targetId) {
		return hasEventMatching((event) -> event.eventType() == type && targetId.equals(event.targetId()),
				"an event of type " + type.wireName() + " for target " + targetId);
	}

	/** Verifies that an event of {@code type} with result {@code code} was emitted for {@code targetId}. */
	public AuditEventsAssert hasEvent(AuditEventType type, ResultCode code, String targetId) {
		return hasEventMatching(
				(event) -> event.eventType() == type && event.resultCode() == code && targetId.equals(event.targetId()),
				"an event of type " + type.wireName() + " with result " + code.wireName() + " for target "
						+ targetId);
	}

	/** Verifies that a fenced commit of {@code targetId} was refused ({@code target_lease_commit_rejected}). */
	public AuditEventsAssert hasCommitRejected(String targetId) {
		return hasEvent(AuditEventType.COMMIT_REJECTED, targetId);
	}

	/** Verifies that an event matching {@code filter} was emitted. */
	public AuditEventsAssert hasEventMatching(Predicate<AuditEvent> filter, String description) {
		isNotNull();
		Optional<AuditEvent> event = this.actual.await(filter, this.wait);
		if (event.isEmpty()) {
			failWithMessage("Expected %s within %s, but the captured audit events were %s", description, this.wait,
					this.actual);
		}
		return this;
	}

	/**
	 * Verifies that no event of {@code type} has been emitted for {@code targetId} so far (does not wait). Prefer it
	 * to {@link #hasNoEventOfType(AuditEventType)} when other jobs of the same application may still be running.
	 */
	public AuditEventsAssert hasNoEvent(AuditEventType type, String targetId) {
		isNotNull();
		boolean found = this.actual.ofType(type).stream().anyMatch((event) -> targetId.equals(event.targetId()));
		if (found) {
			failWithMessage("Expected no event of type %s for target %s, but the captured audit events were %s",
					type.wireName(), targetId, this.actual);
		}
		return this;
	}

	/** Verifies that no event of {@code type} has been emitted so far (does not wait). */
	public AuditEventsAssert hasNoEventOfType(AuditEventType type) {
		isNotNull();
		if (!this.actual.ofType(type).isEmpty()) {
			failWithMessage("Expected no event of type %s, but the captured audit events were %s", type.wireName(),
					this.actual);
		}
		return this;
	}

}
