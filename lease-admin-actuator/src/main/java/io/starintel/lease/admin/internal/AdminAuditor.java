package io.starintel.lease.admin.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.internal.BoundedSinkWrite;
import io.starintel.lease.core.ResultCode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the audit event of an admin request refused before the store (denied, rate-limited, malformed, refused by
 * the firewall or the security chain) through the non-blocking audit pipeline when there is one (so a silent audit
 * backend never holds an admin request), else synchronously to every {@link AuditSink} bean; the answer of an admin
 * decision the store does not audit itself (a recovery that revoked) is written synchronously, before the answer,
 * waiting at most until the request's deadline. The durable sinks get an event only when it names a program within
 * the caller's scope, so a caller cannot create audit streams for programs it may not see; the log and
 * application-event sinks get every event. Marks the request's {@link AdminRequestAudit slot}. With
 * {@code starintel.lease.audit.enabled=false} nothing is written.
 */
public final class AdminAuditor {

	private static final Logger logger = LoggerFactory.getLogger(AdminAuditor.class);

	private final Supplier<List<AuditSink>> sinks;

	private final boolean enabled;

	private final Clock clock;

	private volatile @Nullable List<AuditSink> resolved;

	private final @Nullable AsyncAuditPipeline pipeline;

	/**
	 * An auditor.
	 * @param sinks the sinks (resolved on first use)
	 * @param enabled {@code starintel.lease.audit.enabled}
	 * @param clock server clock
	 */
	public AdminAuditor(Supplier<List<AuditSink>> sinks, boolean enabled, Clock clock) {
		this(sinks, enabled, clock, null);
	}

	/**
	 * An auditor whose refusals go through the non-blocking audit pipeline ({@code pipeline}; none: every event is
	 * written synchronously); admin decisions are written synchronously either way.
	 * @param sinks the sinks (resolved on first use)
	 * @param enabled {@code starintel.lease.audit.enabled}
	 * @param clock server clock
	 * @param pipeline the routine-event pipeline, or {@code null}
	 */
	public AdminAuditor(Supplier<List<AuditSink>> sinks, boolean enabled, Clock clock,
			@Nullable AsyncAuditPipeline pipeline) {
		this.sinks = sinks;
		this.enabled = enabled;
		this.clock = clock;
		this.pipeline = pipeline;
	}

	/** The server clock. */
	public Clock clock() {
		return this.clock;
	}

	/** Records an event; {@code durable}: whether durable sinks may get it (its program is in the caller's scope). */
	public void record(AuditEvent event, boolean durable) {
		record(event, durable, null);
	}

	/**
	 * Records an event; {@code durable}: whether durable sinks may get it (its program is in the caller's scope). A
	 * synchronous write waits at most until {@code deadlineAt} (the request's deadline, when known).
	 */
	public void record(AuditEvent event, boolean durable, @Nullable Instant deadlineAt) {
		AdminRequestAudit.markAudited();
		if (!this.enabled) {
			return;
		}
		AsyncAuditPipeline routine = this.pipeline;
		if (routine != null && (!isAdminDecision(event)
				|| deadlineAt != null && !this.clock.instant().isBefore(deadlineAt))) {
			// a refusal: through the non-blocking pipeline, so a silent audit backend never holds an admin request;
			// so is a decision whose request's deadline has passed (no synchronous write could be confirmed)
			if (durable) {
				routine.submit(event);
			}
			else {
				routine.submitExceptDurable(event);
			}
			return;
		}
		for (AuditSink sink : sinks()) {
			if (sink.isDurable() && (!durable || event.scope() == null)) {
				continue;
			}
			try {
				if (deadlineAt != null) {
					BoundedSinkWrite.recordWithin(sink, event, Duration.between(this.clock.instant(), deadlineAt));
				}
				else {
					sink.record(event);
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Audit sink {} failed for {} ({})", sink.getClass().getName(), event.eventType().wireName(),
						ex.getClass().getSimpleName());
			}
		}
	}

	/**
	 * A force-release, revoke or recovery that happened (its code is a success): written synchronously, before the
	 * answer (contract: high-risk admin operations have durable audit before they report success).
	 */
	private static boolean isAdminDecision(AuditEvent event) {
		return event.eventType().isAdministrative() && event.resultCode().httpStatus() == 200;
	}

	/** Records an event of a request refused before a caller or scope was known (no durable sink). */
	public void refused(AuditEventType type, ResultCode code, String correlationId) {
		record(new AuditEventBuilder(type, code).time(this.clock.instant(), this.clock.instant())
			.ids(null, correlationId)
			.build(), false);
	}

	private List<AuditSink> sinks() {
		List<AuditSink> list = this.resolved;
		if (list == null) {
			list = List.copyOf(this.sinks.get());
			this.resolved = list;
		}
		return list;
	}

}
