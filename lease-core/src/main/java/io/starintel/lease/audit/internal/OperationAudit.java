package io.starintel.lease.audit.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.ResultCode;

/**
 * The routine events of an {@link AuditingLeaseStore} (every event but the admin decisions): one per call of a lease
 * operation, for every outcome; commit authorizations that are rejected or requested over HTTP; one per lease a
 * sweep ended.
 */
final class OperationAudit {

	private final AuditDispatcher dispatcher;

	private final Clock clock;

	OperationAudit(AuditDispatcher dispatcher, Clock clock) {
		this.dispatcher = dispatcher;
		this.clock = clock;
	}

	/** Fills the fields of one operation's event from its request and result. */
	interface Describer {

		void describe(AuditEventBuilder builder, LeaseResult result);

	}

	/**
	 * Runs one lease operation and records its event: the result's code, or {@code lease_outcome_unknown}
	 * ({@code lease_backend_unavailable} for reads) when the operation throws (an {@link Error} too: the service
	 * answers it so, and the throwable is rethrown for that one mapping); a result that found the lease expired
	 * adds a {@code target_lease_expire} event.
	 */
	LeaseResult run(AuditEventType type, Instant deadlineAt, Supplier<LeaseResult> operation,
			Describer describer) {
		Instant started = this.clock.instant();
		LeaseResult result;
		try {
			result = operation.get();
		}
		catch (RuntimeException | Error ex) {
			ResultCode code = (type == AuditEventType.INSPECT || type == AuditEventType.RESOLVE)
					? ResultCode.LEASE_BACKEND_UNAVAILABLE
					: ResultCode.LEASE_OUTCOME_UNKNOWN;
			AuditEventBuilder b = new AuditEventBuilder(type, code).time(this.clock.instant(), started);
			describer.describe(b, LeaseResult.failure(code, Reason.NONE, null));
			this.dispatcher.record(b.deadline(deadlineAt, started).build(), deadlineAt);
			throw ex;
		}
		AuditEventBuilder b = new AuditEventBuilder(type, result.code());
		describer.describe(b, result);
		b.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
			.deadline(deadlineAt, started);
		AuditFields.callerIds(b, type);
		this.dispatcher.record(b.build(), deadlineAt);
		if (result.reason() == Reason.EXPIRED && type != AuditEventType.EXPIRE) {
			AuditEventBuilder expiry = new AuditEventBuilder(AuditEventType.EXPIRE, result.code());
			describer.describe(expiry, result);
			this.dispatcher.record(expiry.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
				.states(LeaseState.ACTIVE.wireName(), LeaseState.EXPIRED.wireName())
				.build(), deadlineAt);
		}
		return result;
	}

	/** Runs a list call and records its {@code target_lease_list} event. */
	LeasePage list(ListRequest request, Supplier<LeasePage> call) {
		Instant started = this.clock.instant();
		LeasePage page;
		try {
			page = call.get();
		}
		catch (RuntimeException | Error ex) {
			this.dispatcher.record(listEvent(request, ResultCode.LEASE_BACKEND_UNAVAILABLE, null, started),
					request.deadlineAt());
			throw ex;
		}
		this.dispatcher.record(listEvent(request, page.code(), page.decidedAt(), started), request.deadlineAt());
		return page;
	}

	private AuditEvent listEvent(ListRequest request, ResultCode code, @Nullable Instant decidedAt, Instant started) {
		AuditEventBuilder b = new AuditEventBuilder(AuditEventType.LIST, code)
			.time(decidedAt != null ? decidedAt : this.clock.instant(), started)
			.deadline(request.deadlineAt(), started)
			.ids(null, request.correlationId())
			.scope(request.filter().scope());
		if (request.filter() instanceof ListFilter.ByTarget target) {
			b.target(target.targetNamespace(), target.targetId());
		}
		AuditFields.callerContext(b);
		return b.build();
	}

	/** Records the event of a commit authorization, granted or rejected. */
	void commit(CommitRequest request, LeaseResult result, Instant started) {
		AuditEventBuilder b = new AuditEventBuilder(
				result.isSuccess() ? AuditEventType.COMMIT_AUTHORIZE : AuditEventType.COMMIT_REJECTED,
				result.code());
		AuditFields.holder(b, request.handle(), request.caller(), null, result, LeaseState.ACTIVE);
		// enforcement point and reason, as ConsumerRejectionRecorder writes amqp_consume:<reason> (the console groups by them)
		b.ids(null, request.correlationId())
			.reason("authorize_commit:" + result.reason().wireName())
			.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
			.deadline(request.deadlineAt(), started);
		this.dispatcher.record(b.build(), request.deadlineAt());
	}

	/**
	 * Records the {@code target_lease_attach} event of one attached-key operation: the holder's handle (put, delete)
	 * or the program scope and the caller bound on this thread (get, list), the acting credential and trace, execution and job ids of a put or delete that
	 * names its caller, the answered code and {@code <operation>:<reason>}; never a key name or value (contract: no
	 * arbitrary metadata in audit events).
	 */
	void attachment(String operation, @Nullable LeaseHandle handle, @Nullable RequestCaller caller,
			@Nullable ProgramScope scope, @Nullable String requestId, @Nullable String correlationId, ResultCode code,
			Reason reason, @Nullable Instant decidedAt, Instant deadlineAt, Instant started) {
		AuditEventBuilder b = new AuditEventBuilder(AuditEventType.ATTACH, code);
		if (handle != null) {
			b.identity(handle.identity())
				.principal(PrincipalClass.WORKER, handle.ownerPrincipalId(),
						(caller != null) ? caller.credentialId() : null, handle.serviceInstanceId())
				.lease(handle.leaseId(), handle.fencingToken());
			if (caller != null) {
				b.execution(caller.traceId(), caller.executionId(), caller.jobId());
			}
		}
		else {
			b.scope(scope);
			// a read names its caller where one is bound (the worker and admin layers, a job's LeaseContext)
			AuditFields.callerContext(b);
		}
		b.ids(requestId, correlationId)
			.reason(operation + ":" + reason.wireName())
			.time((decidedAt != null) ? decidedAt : this.clock.instant(), started)
			.deadline(deadlineAt, started);
		this.dispatcher.record(b.build(), deadlineAt);
	}

	/** Records the {@code target_lease_expire} event of one lease a sweep ended. */
	void expired(SweepRequest request, SweepResult result, LeaseRecord ended, Instant started) {
		AuditEventBuilder b = new AuditEventBuilder(AuditEventType.EXPIRE, ResultCode.LEASE_LOST)
			.record(ended)
			.execution(ended.traceId(), ended.executionId(), ended.jobId())
			.principal(PrincipalClass.WORKER, ended.owner().principalId(), ended.owner().credentialId(),
					ended.owner().serviceInstanceId())
			.states(LeaseState.ACTIVE.wireName(), LeaseState.EXPIRED.wireName())
			.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
			.deadline(request.deadlineAt(), started);
		this.dispatcher.record(b.build(), request.deadlineAt());
	}

}
