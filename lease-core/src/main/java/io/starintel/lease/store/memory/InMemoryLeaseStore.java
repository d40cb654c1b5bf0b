package io.starintel.lease.store.memory;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.FencingTokenRule;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.MutatingRequest;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseStore;

/**
 * The in-memory reference store: the executable model of the contract, linearizable within one JVM (every
 * operation runs under one lock), driven by an injectable backend clock. It is single-JVM only: use it for
 * quick starts and as the model that backend stores are tested against, never for a fleet.
 *
 * <p>The SPI facade: each operation's decision. Lock, backend time, deadlines and replay: {@code LinearizationPoint}
 * ({@code IdempotencyLedger}); state: {@code LeaseTable} ({@code AttachedKeys}); paging: {@code LeasePager}.
 */
public final class InMemoryLeaseStore implements LeaseStore {

	private final LeasePolicy policy;

	private final LeaseTable table;

	private final LinearizationPoint point;

	private final LeasePager pager = new LeasePager();

	/** A store on the given backend clock and policy. */
	public InMemoryLeaseStore(Clock clock, LeasePolicy policy) {
		this.policy = policy;
		this.table = new LeaseTable(policy.historyLength());
		this.point = new LinearizationPoint(clock, policy, this.table);
	}

	/** A store on the system clock and the default policy. */
	public InMemoryLeaseStore() {
		this(Clock.systemUTC(), LeasePolicy.defaults());
	}

	/** Sets the durable counter of an identity's lock key (test hook for the counter-limit row). */
	public void setFencingCounter(String lockKey, long value) {
		this.point.locked(now -> this.table.setCounter(lockKey, value));
	}

	/** Terminal history of an identity, newest first (bounded by the policy's history length). */
	public List<LeaseRecord> history(String lockKey) {
		return this.point.locked(now -> this.table.history(lockKey));
	}

	@Override
	public LeaseResult acquire(AcquireRequest request) {
		return this.point.mutate(request, now -> {
			this.policy.check(request, now);
			String key = request.identity().lockKey();
			LeaseRecord current = this.table.current(key, now);
			if (current != null) {
				return LeaseResult.conflict(now, current.expiresAt().toEpochMilli() - now.toEpochMilli());
			}
			ProgramScope scope = request.identity().scope();
			if (this.table.activeLeases(scope, now) >= this.policy.maximumActiveLeases(scope)) {
				return LeaseResult.failure(ResultCode.LEASE_RATE_LIMITED, Reason.ACTIVE_LEASE_LIMIT_REACHED, now);
			}
			long token = FencingTokenRule.next(this.table.counter(key), now.toEpochMilli(),
					this.policy.clockSkewBound().toMillis());
			if (token < 0) {
				return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE,
						(FencingTokenRule.refusal(token) == FencingTokenRule.Refusal.CLOCK_BEHIND) ? Reason.BACKEND_CLOCK_BEHIND
								: Reason.FENCING_COUNTER_EXHAUSTED,
						now);
			}
			this.table.setCounter(key, token);
			Instant expires = now.plusMillis(Math.min(request.ttlMs(), request.maximumLifetimeMs()));
			LeaseRecord record = new LeaseRecord(request.identity(), Identifiers.generate("lease"), request.owner(),
					token, now, now, expires, request.ttlMs(), request.maximumLifetimeMs(), request.executionId(),
					request.jobId(), request.traceId(), request.requestId(), request.metadata(), LeaseState.ACTIVE);
			this.table.start(record);
			return LeaseResult.success(ResultCode.LEASE_ACQUIRED, record, now);
		});
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		Long ttl = request.ttlMs();
		if (ttl != null) {
			// policy before anything else, as the Redis store does: an out-of-policy TTL is invalid, never lost
			try {
				this.policy.checkRenewTtl(ttl);
			}
			catch (InvalidLeaseRequestException ex) {
				return LeaseResult.invalid(ex);
			}
		}
		return mutateHeld(request, request.handle(), (current, now) -> {
			LeaseRecord renewed = (ttl != null) ? current.renewedAt(now, ttl) : current.renewedAt(now);
			this.table.replace(renewed);
			return LeaseResult.success(ResultCode.LEASE_RENEWED, renewed, now);
		});
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		return mutateHeld(request, request.handle(), (current, now) -> LeaseResult.success(ResultCode.LEASE_RELEASED,
				this.table.end(current, LeaseState.RELEASED), now));
	}

	/** A mutation allowed only to the exact holder; anything else is {@code lease_lost} without mutation. */
	private LeaseResult mutateHeld(MutatingRequest request, LeaseHandle handle,
			BiFunction<LeaseRecord, Instant, LeaseResult> transition) {
		return this.point.mutate(request, now -> {
			LeaseRecord current = this.table.held(handle, now);
			return (current != null) ? transition.apply(current, now)
					: LeaseResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
		});
	}

	@Override
	public LeaseResult forceRelease(AdminRequest request) {
		return administer(request, LeaseState.RELEASED, ResultCode.LEASE_RELEASED);
	}

	@Override
	public LeaseResult revoke(AdminRequest request) {
		return administer(request, LeaseState.REVOKED, ResultCode.LEASE_REVOKED);
	}

	private LeaseResult administer(AdminRequest request, LeaseState terminal, ResultCode code) {
		return this.point.mutate(request, now -> {
			LeaseRecord current = this.table.current(request.identity().lockKey(), now);
			if (current == null || !current.leaseId().equals(request.expectedLeaseId())
					|| current.fencingToken() != request.expectedFencingToken()) {
				return LeaseResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
			}
			return LeaseResult.success(code, this.table.end(current, terminal), now);
		});
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		return this.point.decideOnce(request.deadlineAt(), now -> {
			String key = (request.identity() != null) ? request.identity().lockKey()
					: this.table.lockKeyOf(request.leaseId());
			LeaseRecord current = (key != null) ? this.table.current(key, now) : null;
			if (current == null || !current.identity().scope().equals(request.scope())
					|| (request.leaseId() != null && !current.leaseId().equals(request.leaseId()))) {
				return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, now);
			}
			return LeaseResult.success(ResultCode.LEASE_INSPECTED, current, now);
		});
	}

	@Override
	public LeasePage list(ListRequest request) {
		return this.point.locked(now -> this.policy.isBeyondMaximumDeadline(request.deadlineAt(), now)
				? LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, now)
				: now.isAfter(request.deadlineAt()) ? LeasePage.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now)
				: this.pager.page(request, this.policy.pageSize(request.pageSize()), now,
						() -> this.table.currentRecords(now)));
	}

	/** Authorizes a fenced write of the exact holder and raises the key's high-water mark to its token. */
	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		return this.point.decideOnce(request.deadlineAt(), now -> {
			LeaseHandle handle = request.handle();
			String key = handle.identity().lockKey();
			if (handle.fencingToken() < this.table.highWaterMark(key)) {
				return LeaseResult.failure(ResultCode.LEASE_LOST, Reason.TOKEN_BELOW_HIGH_WATER_MARK, now);
			}
			LeaseRecord current = this.table.held(handle, now);
			if (current == null) {
				return LeaseResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
			}
			this.table.raiseHighWaterMark(key, handle.fencingToken());
			return LeaseResult.success(ResultCode.LEASE_COMMIT_AUTHORIZED, current, now);
		});
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		return this.point.resolve(request);
	}

	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		return this.point.mutateAttached(request.handle(), request.operation(), request.requestId(), request.digest(),
				request.deadlineAt(), (holder, now) -> {
					this.policy.check(request, now);
					return this.table.attachedKeys().put(holder, request.name(), request.value(),
							this.policy.maximumAttachedKeys(), now, (leaseId) -> this.table.activeById(leaseId, now));
				});
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return this.point.mutateAttached(request.handle(), request.operation(), request.requestId(), request.digest(),
				request.deadlineAt(), (holder, now) -> this.table.attachedKeys().delete(holder, request.name(), now));
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		return this.point.readAttached(request.deadlineAt(), now -> this.table.attachedKeys().get(request.scope(), request.name(),
				now, (leaseId) -> this.table.activeById(leaseId, now)));
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		return this.point.readAttached(request.deadlineAt(), now -> this.table.attachedKeys().list(request.scope(),
				request.leaseId(), now, (leaseId) -> this.table.activeById(leaseId, now)));
	}

	/** The same decision the Redis store's sweep function takes in one script ({@link LeaseTable#sweep}). */
	@Override
	public SweepResult sweepExpired(SweepRequest request) {
		return this.point.locked(now -> now.isAfter(request.deadlineAt())
				? SweepResult.failure(SweepResult.Status.DEADLINE_EXCEEDED, now)
				: this.table.sweep(request.scope(), request.batchLimit(), now));
	}

	@Override
	public ActivePrograms activePrograms(int limit, Instant deadlineAt) {
		return this.point.locked(now -> {
			if (now.isAfter(deadlineAt)) {
				return ActivePrograms.failure(ActivePrograms.Status.DEADLINE_EXCEEDED);
			}
			Set<ProgramScope> programs = this.table.programs();
			return new ActivePrograms(ActivePrograms.Status.LISTED,
					programs.stream().limit(Math.max(1, limit)).toList(), programs.size(), now);
		});
	}

}
