package io.starintel.lease.audit.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

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
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.internal.LateRenewal;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseStore;
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

	private final LeaseStore delegate;

	private final Clock clock;

	private final AuditDispatcher dispatcher;

	private final OperationAudit operations;

	private final AdminDecisionAudit admin;

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
		this.clock = clock;
		this.dispatcher = new AuditDispatcher(sinks, null, clock);
		this.operations = new OperationAudit(this.dispatcher, clock);
		this.admin = new AdminDecisionAudit(this.dispatcher, clock, delegateWritesAdminAudit);
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
		this.clock = clock;
		this.dispatcher = new AuditDispatcher(sinks, routine, clock);
		this.operations = new OperationAudit(this.dispatcher, clock);
		this.admin = new AdminDecisionAudit(this.dispatcher, clock, delegate.writesAdminAuditAtomically());
	}

	@Override
	public <T> Optional<T> unwrap(Class<T> type) {
		return type.isInstance(this) ? Optional.of(type.cast(this)) : this.delegate.unwrap(type);
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
		return this.operations.run(AuditEventType.ACQUIRE, request.deadlineAt(), () -> this.delegate.acquire(request),
				(b, r) -> AuditFields.acquire(b, request, r));
	}

	/** The delegate's bounded-wait acquisition, audited once with its final outcome (not once per attempt). */
	@Override
	public LeaseResult acquireWaiting(AcquireRequest request, Duration wait) {
		return this.operations.run(AuditEventType.ACQUIRE, request.deadlineAt(), () -> this.delegate.acquireWaiting(request, wait),
				(b, r) -> AuditFields.acquire(b, request, r));
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		return this.operations.run(AuditEventType.RENEW, request.deadlineAt(),
				() -> LateRenewal.answer(this.delegate.renew(request), request, this.clock.instant()), (b, r) -> {
			AuditFields.holder(b, request.handle(), request.caller(), request.requestId(), r, LeaseState.ACTIVE);
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
		catch (RuntimeException | Error ex) {
			for (RenewRequest request : requests) {
				try {
					this.operations.run(AuditEventType.RENEW, request.deadlineAt(), () -> {
						throw ex;
					}, (b, r) -> AuditFields.holder(b, request.handle(), request.caller(), request.requestId(), r, LeaseState.ACTIVE));
				}
				catch (RuntimeException | Error rethrown) {
					// audited as outcome unknown; the exception itself is rethrown once below
				}
			}
			throw ex;
		}
		Instant received = this.clock.instant();
		List<LeaseResult> out = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			RenewRequest request = requests.get(i);
			LeaseResult result = LateRenewal.answer(results.get(i), request, received);
			out.add(this.operations.run(AuditEventType.RENEW, request.deadlineAt(), () -> result,
					(b, r) -> AuditFields.holder(b, request.handle(), request.caller(), request.requestId(), r, LeaseState.ACTIVE)));
		}
		return out;
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		return this.operations.run(AuditEventType.RELEASE, request.deadlineAt(), () -> this.delegate.release(request),
				(b, r) -> AuditFields.holder(b, request.handle(), request.caller(), request.requestId(), r, LeaseState.RELEASED));
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		return inspect(request, (lease) -> true);
	}

	/**
	 * Inspect for a caller that may see only some leases (a worker: its own): a success whose lease is not
	 * {@code visible} is answered, and audited, as {@code lease_not_found} (the contract's answer that does not
	 * disclose protected existence), so that the event records what the caller was answered and never a lease it was
	 * not shown.
	 */
	public LeaseResult inspect(InspectRequest request, Predicate<LeaseRecord> visible) {
		return this.operations.run(AuditEventType.INSPECT, request.deadlineAt(),
				() -> visibleOnly(this.delegate.inspect(request), visible), (b, r) -> {
					b.scope(request.scope()).ids(null, request.correlationId());
					if (request.identity() != null) {
						b.identity(request.identity());
					}
					if (r.lease() != null && r.isSuccess()) {
						b.record(r.lease());
					}
				});
	}

	/** {@code result}, or {@code lease_not_found} when it is a success whose lease is not visible. */
	public static LeaseResult visibleOnly(LeaseResult result, Predicate<LeaseRecord> visible) {
		if (result.isSuccess() && result.lease() != null && !visible.test(result.lease())) {
			return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, result.decidedAt());
		}
		return result;
	}

	@Override
	public LeasePage list(ListRequest request) {
		return this.operations.list(request, () -> this.delegate.list(request));
	}

	@Override
	public LeaseResult forceRelease(AdminRequest request) {
		return this.admin.administer(request, () -> this.delegate.forceRelease(request), LeaseState.RELEASED);
	}

	@Override
	public LeaseResult revoke(AdminRequest request) {
		return this.admin.administer(request, () -> this.delegate.revoke(request), LeaseState.REVOKED);
	}

	/*
	 * Attached-key operations: one target_lease_attach event each (contract: every request emits an audit event),
	 * with the answered code and the operation in the reason; never a key name or value. Their deletion by an ending
	 * transition is part of that release/revoke/expiry event. docs/attachments.md.
	 */
	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		return attachment("attach_put", request.handle(), request.caller(), null, request.requestId(), null,
				request.deadlineAt(), true, () -> this.delegate.putAttached(request));
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		return attachment("attach_get", null, null, request.scope(), null, request.correlationId(),
				request.deadlineAt(), false, () -> this.delegate.getAttached(request));
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return attachment("attach_delete", request.handle(), request.caller(), null, request.requestId(), null,
				request.deadlineAt(), true, () -> this.delegate.deleteAttached(request));
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		return attachment("attach_list", null, null, request.scope(), null, request.correlationId(),
				request.deadlineAt(), false, () -> this.delegate.listAttached(request));
	}

	private AttachmentResult attachment(String operation, @Nullable LeaseHandle handle,
			@Nullable RequestCaller caller, @Nullable ProgramScope scope, @Nullable String requestId,
			@Nullable String correlationId, Instant deadlineAt, boolean mutation,
			java.util.function.Supplier<AttachmentResult> call) {
		Instant started = this.clock.instant();
		AttachmentResult result;
		try {
			result = call.get();
		}
		catch (RuntimeException | Error ex) {
			// what the service answers for a store that throws: a mutation may have committed, a read failed
			this.operations.attachment(operation, handle, caller, scope, requestId, correlationId,
					mutation ? ResultCode.LEASE_OUTCOME_UNKNOWN : ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.NONE,
					null, deadlineAt, started);
			throw ex;
		}
		this.operations.attachment(operation, handle, caller, scope, requestId, correlationId, result.code(),
				result.reason(), result.decidedAt(), deadlineAt, started);
		return result;
	}

	/**
	 * Every authorization is a request and is audited (contract: every request emits an event): a granted one as
	 * {@code target_lease_commit_authorize}, a rejected one as {@code target_lease_commit_rejected}, whoever asked (a
	 * job's fenced publish or CouchDB write through the guard, or the worker API). Routine events, so a granted
	 * commit's event goes through the non-blocking pipeline and adds no wait to the write. A delegate that throws is
	 * audited as a rejection ({@code lease_backend_unavailable}, what the service answers).
	 */
	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		Instant started = this.clock.instant();
		LeaseResult result;
		try {
			result = this.delegate.authorizeCommit(request);
		}
		catch (RuntimeException | Error ex) {
			// a store that throws is a refused commit too (the service answers lease_backend_unavailable): audited as
			// the rejection the caller gets, then rethrown for the service's one exception mapping
			this.operations.commit(request, LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE,
					Reason.BACKEND_UNREACHABLE, null), started);
			throw ex;
		}
		this.operations.commit(request, result, started);
		return result;
	}

	/** A resolve by request id is a request of its own ({@code target_lease_resolve}), audited like a read. */
	@Override
	public LeaseResult resolve(ResolveRequest request) {
		return resolve(request, (lease) -> true);
	}

	/** As {@link #resolve(ResolveRequest)}, answering and auditing a result whose lease is not visible as not found. */
	public LeaseResult resolve(ResolveRequest request, Predicate<LeaseRecord> visible) {
		return this.operations.run(AuditEventType.RESOLVE, request.deadlineAt(),
				() -> visibleOnly(this.delegate.resolve(request), visible), (b, r) -> {
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
			this.operations.expired(request, result, ended, started);
		}
		return result;
	}

}
