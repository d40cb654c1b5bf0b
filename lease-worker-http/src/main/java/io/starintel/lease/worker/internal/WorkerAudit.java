package io.starintel.lease.worker.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;

/**
 * The worker API's own audit events: the refusals it takes before any store call (401, 400, 403, 408 and 429, and a
 * request that never reached the store). Everything the store decides (including resolve, commit authorizations and
 * a bounded-wait acquire, once) is audited by the audited store behind the lease service, so each request emits one
 * event. Events go through the audit
 * auto-configuration's non-blocking pipeline when there is one (never a sink call with an unbounded wait on a request
 * thread). Failures are logged without detail and never change the answer (these events are not administrative).
 */
final class WorkerAudit {

	private static final Logger logger = LoggerFactory.getLogger(WorkerAudit.class);

	private final Consumer<AuditEvent> submit;

	private final Clock clock;

	/** Events go to {@code submit}, e.g. the audit auto-configuration's non-blocking pipeline. */
	WorkerAudit(Consumer<AuditEvent> submit, Clock clock) {
		this.submit = submit;
		this.clock = clock;
	}

	/** Events are written synchronously to every sink (when no pipeline exists); failures are logged only. */
	static Consumer<AuditEvent> synchronous(Supplier<List<AuditSink>> sinks) {
		return (event) -> {
			for (AuditSink sink : sinks.get()) {
				try {
					sink.record(event);
				}
				catch (RuntimeException ex) {
					logger.warn("Audit sink {} failed for {} ({})", sink.getClass().getName(),
							event.eventType().wireName(), ex.getClass().getSimpleName());
				}
			}
		};
	}

	/** Records a refusal taken before the store. */
	void refused(AuditEventType type, ResultCode code, String correlationId, Instant started,
			@Nullable WorkerCaller caller, @Nullable String requestId, @Nullable LockIdentity identity,
			@Nullable String serviceInstanceId) {
		AuditEventBuilder b = new AuditEventBuilder(type, code)
			.time(this.clock.instant(), started)
			.ids(requestId, correlationId);
		if (caller != null) {
			b.principal(PrincipalClass.WORKER, caller.principalId(), caller.credentialId(), serviceInstanceId)
				.scope(caller.scope());
		}
		else {
			b.principal(PrincipalClass.ANONYMOUS, null, null, null);
		}
		if (identity != null) {
			b.identity(identity);
		}
		emit(b.build());
	}

	private void emit(AuditEvent event) {
		try {
			this.submit.accept(event);
		}
		catch (RuntimeException ex) {
			logger.warn("Audit of {} failed ({})", event.eventType().wireName(), ex.getClass().getSimpleName());
		}
	}

}
