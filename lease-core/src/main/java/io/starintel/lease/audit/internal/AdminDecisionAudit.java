package io.starintel.lease.audit.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * The audit of the admin decisions (force-release and revoke) of an {@link AuditingLeaseStore}: "force-release and
 * revoke require durable high-priority audit before the operation reports success".
 */
final class AdminDecisionAudit {

	private final AuditDispatcher dispatcher;

	private final Clock clock;

	private final boolean delegateWritesAdminAudit;

	AdminDecisionAudit(AuditDispatcher dispatcher, Clock clock, boolean delegateWritesAdminAudit) {
		this.dispatcher = dispatcher;
		this.clock = clock;
		this.delegateWritesAdminAudit = delegateWritesAdminAudit;
	}

	/**
	 * Runs a force-release or revoke and records its decision synchronously to the sinks, each waited for at most
	 * until the request's deadline: a success whose event no durable sink confirmed by then (and the delegate did not
	 * write) answers {@code lease_outcome_unknown}. The decision ({@link AdminDecision}: decision id, correlation id,
	 * start) is bound while the delegate runs, so a delegate that writes the decision's entry itself writes the ids and
	 * latency of this event.
	 */
	LeaseResult administer(AdminRequest request, Supplier<LeaseResult> operation, LeaseState terminal) {
		AuditEventType type = (request.operation() == Operation.REVOKE) ? AuditEventType.REVOKE
				: AuditEventType.FORCE_RELEASE;
		// one decision id and start for this decision's event and the entry a store writes in its transition
		AdminDecision decision = AdminDecision.begin(this.clock.instant());
		LeaseResult result;
		try {
			result = decision.run(operation);
		}
		catch (RuntimeException ex) {
			this.dispatcher.recordToSinks(adminEvent(request, type, ResultCode.LEASE_OUTCOME_UNKNOWN, null, null,
					decision), false, request.deadlineAt());
			throw ex;
		}
		boolean durable = this.dispatcher.recordToSinks(adminEvent(request, type, result.code(), result.decidedAt(),
				result.isSuccess() ? terminal : null, decision), delegateWrote(result), request.deadlineAt());
		if (result.isSuccess() && !durable) {
			return new LeaseResult(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.NONE, null, false, null,
					result.decidedAt(), 0, "audit: durable audit not confirmed; retry with the same request_id");
		}
		return result;
	}

	private AuditEvent adminEvent(AdminRequest request, AuditEventType type, ResultCode code,
			@Nullable Instant decidedAt, @Nullable LeaseState terminal, AdminDecision decision) {
		Instant started = decision.startedAt();
		AuditEventBuilder b = new AuditEventBuilder(type, code)
			.time(decidedAt != null ? decidedAt : this.clock.instant(), started)
			.deadline(request.deadlineAt(), started)
			.decision(decision.decisionId())
			.identity(request.identity())
			.ids(request.requestId(), null)
			.principal(PrincipalClass.ADMINISTRATOR, request.adminPrincipalId(), request.adminCredentialId(), null)
			.lease(request.expectedLeaseId(), request.expectedFencingToken())
			.reason(request.reason());
		if (terminal != null) {
			b.states(LeaseState.ACTIVE.wireName(), terminal.wireName());
		}
		AuditFields.callerContext(b);
		return b.principal(PrincipalClass.ADMINISTRATOR, request.adminPrincipalId(), request.adminCredentialId(), null)
			.build();
	}

	/**
	 * Whether the delegate wrote this admin outcome durably itself: with {@code delegateWritesAdminAudit}, the
	 * decisions taken in the transition (the terminal transition, or {@code lease_lost} for a stale lease), never a
	 * replay or a refusal before the decision (deadline, idempotency conflict, invalid input, backend failure).
	 */
	private boolean delegateWrote(LeaseResult result) {
		return this.delegateWritesAdminAudit && !result.replayed()
				&& (result.code() == ResultCode.LEASE_RELEASED || result.code() == ResultCode.LEASE_REVOKED
						|| result.code() == ResultCode.LEASE_LOST);
	}

}
