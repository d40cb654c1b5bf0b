package io.starintel.lease.audit.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.PrincipalClass;

/**
 * A {@link LeaseStore} decorator that emits one {@link AuditEvent} per call, for every outcome (accepted, denied,
 * conflicted, stale, expired, rate-limited, backend-failed, outcome-unknown).
 *
 * <p>Contract: "Every request emits an audit event" and "force-release and revoke require durable high-priority audit
 * before the operation reports success". When the delegate already writes its admin decisions durably inside the
 * transition (the Redis store's script writes the terminal transition and the stale {@code lease_lost} answer), set
 * {@code delegateWritesAdminAudit}: durable sinks then skip exactly those events (no duplicate in the stream) and
 * still get replays and refusals taken before the decision. Otherwise a successful force-release or revoke whose event a durable sink
 * could not persist is reported as {@code lease_outcome_unknown}, never as success; a retry with the same request id
 * replays the transition and writes the event again. Commit authorizations are audited when rejected
 * ({@code target_lease_commit_rejected}) or requested over HTTP ({@code target_lease_commit_authorize});
 * {@code resolve} is audited as {@code target_lease_resolve}; a bounded-wait acquire once, not per attempt.
 */
public final class AuditingLeaseStore implements LeaseStore {

	private static final Logger logger = LoggerFactory.getLogger(AuditingLeaseStore.class);

	private final LeaseStore delegate;

	private final List<AuditSink> sinks;

	private final Clock clock;

	private final boolean delegateWritesAdminAudit;

	private final @Nullable AuditSink routine;

	/**
	 * Decorates a store.
	 * @param delegate the store
	 * @param sinks where events go
	 * @param clock server clock (latency, and the timestamp when no backend decided)
	 * @param delegateWritesAdminAudit whether the delegate writes force-release/revoke events durably itself
	 */
	public AuditingLeaseStore(LeaseStore delegate, List<AuditSink> sinks, Clock clock,
			boolean delegateWritesAdminAudit) {
		this.delegate = delegate;
		this.sinks = List.copyOf(sinks);
		this.clock = clock;
		this.delegateWritesAdminAudit = delegateWritesAdminAudit;
		this.routine = null;
	}

	/**
	 * Decorates a store, with routine events going through a non-blocking path (the auto-configured
	 * {@link AsyncAuditPipeline}). Routine events are every event except the force-release and revoke decisions;
	 * those of an admin HTTP request (an {@link AuditContext} is bound) are written synchronously, since no lease work
	 * runs on that thread. Force-release and revoke decisions are always written synchronously to {@code sinks}, the
	 * durable ones skipped when {@link LeaseStore#writesAdminAuditAtomically() the store wrote them in the transition}.
	 * @param delegate the store
	 * @param sinks the sinks, for admin decisions and admin-request events
	 * @param routine where the events of jobs, fenced commits and other lease work go (must never block)
	 * @param clock server clock
	 */
	public AuditingLeaseStore(LeaseStore delegate, List<AuditSink> sinks, AuditSink routine, Clock clock) {
		this.delegate = delegate;
		this.sinks = List.copyOf(sinks);
		this.clock = clock;
		this.delegateWritesAdminAudit = delegate.writesAdminAuditAtomically();
		this.routine = routine;
	}

	@Override
	public boolean writesAdminAuditAtomically() {
		return this.delegate.writesAdminAuditAtomically();
	}

	/** The decorated store. */
	public LeaseStore delegate() {
		return this.delegate;
	}

	@Override
	public LeaseResult acquire(AcquireRequest request) {
		return audited(AuditEventType.ACQUIRE, request.deadlineAt(), () -> this.delegate.acquire(request),
				(b, r) -> describeAcquire(b, request, r));
	}

	private static void describeAcquire(AuditEventBuilder b, AcquireRequest request, LeaseResult r) {
		b.identity(request.identity())
			.ids(request.requestId(), null)
			.execution(request.traceId(), request.executionId(), request.jobId())
			.principal(PrincipalClass.WORKER, request.owner().principalId(), request.owner().credentialId(),
					request.owner().serviceInstanceId())
			.requestedTtlMs(request.ttlMs());
		if (r.lease() != null && r.isSuccess()) {
			b.record(r.lease()).states(null, LeaseState.ACTIVE.wireName());
		}
	}

	/** The delegate's bounded-wait acquisition, audited once with its final outcome (not once per attempt). */
	@Override
	public LeaseResult acquireWaiting(AcquireRequest request, Duration wait) {
		return audited(AuditEventType.ACQUIRE, request.deadlineAt(), () -> this.delegate.acquireWaiting(request, wait),
				(b, r) -> describeAcquire(b, request, r));
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		return audited(AuditEventType.RENEW, request.deadlineAt(), () -> this.delegate.renew(request), (b, r) -> {
			holder(b, request.handle(), request.requestId(), r, LeaseState.ACTIVE);
			if (request.ttlMs() != null) {
				b.requestedTtlMs(request.ttlMs());
			}
		});
	}

	/** The delegate's batched renewal (one backend call per program), with one renew audit event per lease. */
	@Override
	public List<LeaseResult> renewAll(List<RenewRequest> requests) {
		List<LeaseResult> results;
		try {
			results = this.delegate.renewAll(requests);
		}
		catch (RuntimeException ex) {
			for (RenewRequest request : requests) {
				try {
					audited(AuditEventType.RENEW, request.deadlineAt(), () -> {
						throw ex;
					}, (b, r) -> holder(b, request.handle(), request.requestId(), r, LeaseState.ACTIVE));
				}
				catch (RuntimeException rethrown) {
					// audited as outcome unknown; the exception itself is rethrown once below
				}
			}
			throw ex;
		}
		List<LeaseResult> out = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			RenewRequest request = requests.get(i);
			LeaseResult result = results.get(i);
			out.add(audited(AuditEventType.RENEW, request.deadlineAt(), () -> result,
					(b, r) -> holder(b, request.handle(), request.requestId(), r, LeaseState.ACTIVE)));
		}
		return out;
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		return audited(AuditEventType.RELEASE, request.deadlineAt(), () -> this.delegate.release(request),
				(b, r) -> holder(b, request.handle(), request.requestId(), r, LeaseState.RELEASED));
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		return audited(AuditEventType.INSPECT, request.deadlineAt(), () -> this.delegate.inspect(request), (b, r) -> {
			b.scope(request.scope()).ids(null, request.correlationId());
			if (request.identity() != null) {
				b.identity(request.identity());
			}
			if (r.lease() != null && r.isSuccess()) {
				b.record(r.lease());
			}
		});
	}

	@Override
	public LeasePage list(ListRequest request) {
		Instant started = this.clock.instant();
		LeasePage page;
		try {
			page = this.delegate.list(request);
		}
		catch (RuntimeException ex) {
			emit(listEvent(request, ResultCode.LEASE_BACKEND_UNAVAILABLE, null, started));
			throw ex;
		}
		emit(listEvent(request, page.code(), page.decidedAt(), started));
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
		applyContext(b);
		return b.build();
	}

	@Override
	public LeaseResult forceRelease(AdminRequest request) {
		return administer(request, () -> this.delegate.forceRelease(request), LeaseState.RELEASED);
	}

	@Override
	public LeaseResult revoke(AdminRequest request) {
		return administer(request, () -> this.delegate.revoke(request), LeaseState.REVOKED);
	}

	private LeaseResult administer(AdminRequest request, Supplier<LeaseResult> operation, LeaseState terminal) {
		AuditEventType type = (request.operation() == Operation.REVOKE) ? AuditEventType.REVOKE
				: AuditEventType.FORCE_RELEASE;
		Instant started = this.clock.instant();
		LeaseResult result;
		try {
			result = operation.get();
		}
		catch (RuntimeException ex) {
			emit(adminEvent(request, type, ResultCode.LEASE_OUTCOME_UNKNOWN, null, null, started), false);
			throw ex;
		}
		boolean durable = emit(adminEvent(request, type, result.code(), result.decidedAt(),
				result.isSuccess() ? terminal : null, started), delegateWrote(result));
		if (result.isSuccess() && !durable) {
			return new LeaseResult(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.NONE, null, false, null,
					result.decidedAt(), 0, "audit: durable audit not confirmed; retry with the same request_id");
		}
		return result;
	}

	private AuditEvent adminEvent(AdminRequest request, AuditEventType type, ResultCode code,
			@Nullable Instant decidedAt, @Nullable LeaseState terminal, Instant started) {
		AuditEventBuilder b = new AuditEventBuilder(type, code)
			.time(decidedAt != null ? decidedAt : this.clock.instant(), started)
			.deadline(request.deadlineAt(), started)
			.identity(request.identity())
			.ids(request.requestId(), null)
			.principal(PrincipalClass.ADMINISTRATOR, request.adminPrincipalId(), request.adminCredentialId(), null)
			.lease(request.expectedLeaseId(), request.expectedFencingToken())
			.reason(request.reason());
		if (terminal != null) {
			b.states(LeaseState.ACTIVE.wireName(), terminal.wireName());
		}
		applyContext(b);
		return b.principal(PrincipalClass.ADMINISTRATOR, request.adminPrincipalId(), request.adminCredentialId(), null)
			.build();
	}

	/*
	 * Attached keys are data-plane writes of the lease's holder: delegated without an audit event of their own (their
	 * deletion is part of the release/revoke/expiry transition, which is audited). docs/attachments.md.
	 */

	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		return this.delegate.putAttached(request);
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		return this.delegate.getAttached(request);
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return this.delegate.deleteAttached(request);
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		return this.delegate.listAttached(request);
	}

	/**
	 * A rejected authorization is always audited ({@code target_lease_commit_rejected}); a granted one only when a
	 * caller requested it over HTTP (an {@link AuditContext} is bound: the worker API's authorize-commit), as
	 * {@code target_lease_commit_authorize}. A job's fenced write is audited by its outcome, not per authorization.
	 */
	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		Instant started = this.clock.instant();
		LeaseResult result = this.delegate.authorizeCommit(request);
		if (!result.isSuccess() || AuditContext.current() != null) {
			AuditEventBuilder b = new AuditEventBuilder(
					result.isSuccess() ? AuditEventType.COMMIT_AUTHORIZE : AuditEventType.COMMIT_REJECTED,
					result.code());
			holder(b, request.handle(), null, result, LeaseState.ACTIVE);
			// enforcement point and reason, as ConsumerRejectionRecorder writes amqp_consume:<reason> (the console groups by them)
			b.ids(null, request.correlationId())
				.reason("authorize_commit:" + result.reason().wireName())
				.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
				.deadline(request.deadlineAt(), started);
			emit(b.build());
		}
		return result;
	}

	/** A resolve by request id is a request of its own ({@code target_lease_resolve}), audited like a read. */
	@Override
	public LeaseResult resolve(ResolveRequest request) {
		return audited(AuditEventType.RESOLVE, request.deadlineAt(), () -> this.delegate.resolve(request), (b, r) -> {
			b.identity(request.identity())
				.ids(request.requestId(), null)
				.principal(PrincipalClass.WORKER, request.principalId(), null, null);
			if (r.lease() != null && r.isSuccess()) {
				b.record(r.lease());
			}
		});
	}

	/**
	 * The delegate's sweep, with one {@code target_lease_expire} event per lease it ended (routine: through the
	 * non-blocking path). The store reports each lease to exactly one sweep call, so each swept lease gets exactly one
	 * event, however many sweepers run. The event names the lease's owner (whose lease ended), previous state
	 * {@code active}, resulting state {@code expired}, and the code {@code lease_lost} (what the holder's next
	 * operation answers).
	 */
	@Override
	public SweepResult sweepExpired(SweepRequest request) {
		Instant started = this.clock.instant();
		SweepResult result = this.delegate.sweepExpired(request);
		for (LeaseRecord ended : result.expired()) {
			AuditEventBuilder b = new AuditEventBuilder(AuditEventType.EXPIRE, ResultCode.LEASE_LOST)
				.record(ended)
				.execution(ended.traceId(), ended.executionId(), ended.jobId())
				.principal(PrincipalClass.WORKER, ended.owner().principalId(), ended.owner().credentialId(),
						ended.owner().serviceInstanceId())
				.states(LeaseState.ACTIVE.wireName(), LeaseState.EXPIRED.wireName())
				.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
				.deadline(request.deadlineAt(), started);
			emit(b.build());
		}
		return result;
	}

	private void holder(AuditEventBuilder b, LeaseHandle handle, @Nullable String requestId, LeaseResult r,
			LeaseState onSuccess) {
		b.identity(handle.identity())
			.ids(requestId, null)
			.principal(PrincipalClass.WORKER, handle.ownerPrincipalId(), null, handle.serviceInstanceId())
			.lease(handle.leaseId(), handle.fencingToken());
		if (r.isSuccess()) {
			if (r.lease() != null) {
				b.record(r.lease());
			}
			b.states(LeaseState.ACTIVE.wireName(), onSuccess.wireName());
		}
		else if (r.reason() == Reason.EXPIRED) {
			b.states(LeaseState.EXPIRED.wireName(), LeaseState.EXPIRED.wireName());
		}
	}

	private interface Describer {

		void describe(AuditEventBuilder builder, LeaseResult result);

	}

	private LeaseResult audited(AuditEventType type, Instant deadlineAt, Supplier<LeaseResult> operation,
			Describer describer) {
		Instant started = this.clock.instant();
		LeaseResult result;
		try {
			result = operation.get();
		}
		catch (RuntimeException ex) {
			ResultCode code = (type == AuditEventType.INSPECT || type == AuditEventType.RESOLVE)
					? ResultCode.LEASE_BACKEND_UNAVAILABLE
					: ResultCode.LEASE_OUTCOME_UNKNOWN;
			AuditEventBuilder b = new AuditEventBuilder(type, code).time(this.clock.instant(), started);
			describer.describe(b, LeaseResult.failure(code, Reason.NONE, null));
			emit(b.deadline(deadlineAt, started).build());
			throw ex;
		}
		AuditEventBuilder b = new AuditEventBuilder(type, result.code());
		describer.describe(b, result);
		b.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
			.deadline(deadlineAt, started);
		applyContextIds(b, type);
		emit(b.build());
		if (result.reason() == Reason.EXPIRED && type != AuditEventType.EXPIRE) {
			AuditEventBuilder expiry = new AuditEventBuilder(AuditEventType.EXPIRE, result.code());
			describer.describe(expiry, result);
			emit(expiry.time(result.decidedAt() != null ? result.decidedAt() : this.clock.instant(), started)
				.states(LeaseState.ACTIVE.wireName(), LeaseState.EXPIRED.wireName())
				.build());
		}
		return result;
	}

	/** Correlation id and, for reads, the principal from the calling HTTP layer. */
	private void applyContextIds(AuditEventBuilder b, AuditEventType type) {
		if (type == AuditEventType.INSPECT || type == AuditEventType.RESOLVE) {
			applyContext(b);
		}
		else {
			AuditContext context = AuditContext.current();
			if (context != null && context.correlationId() != null) {
				b.correlation(context.correlationId());
			}
		}
	}

	private void applyContext(AuditEventBuilder b) {
		AuditContext context = AuditContext.current();
		if (context != null) {
			if (context.correlationId() != null) {
				b.correlation(context.correlationId());
			}
			b.principal(context.principalClass(), context.principalId(), context.credentialId(), null);
		}
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

	/** A routine event: through the non-blocking path unless an admin HTTP request is being served. */
	private boolean emit(AuditEvent event) {
		AuditSink routine = this.routine;
		if (routine != null && AuditContext.current() == null) {
			routine.record(event);
			return true;
		}
		return emit(event, false);
	}

	/**
	 * Sends an event to every sink (durable sinks are skipped when {@code delegateWrote}). Returns whether the event
	 * reached durable storage, or whether no durable sink is configured; non-durable sink failures are logged without
	 * detail and never fail the operation.
	 */
	private boolean emit(AuditEvent event, boolean delegateWrote) {
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
