package io.starintel.lease.store.memory;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.FencingTokens;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.ListCursors;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.MutatingRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.LeaseStore;

/**
 * The in-memory reference store: the executable model of the contract, linearizable within one JVM (every
 * operation runs under one lock), driven by an injectable backend clock. It is single-JVM only: use it for
 * quick starts and as the model that backend stores are tested against, never for a fleet.
 *
 * <p>Fencing tokens follow ARCHITECTURE.md: {@code token = max(counter + 1, backend_ms * 1024)}, refused at
 * 2^53 - 1 and when backend time lags the counter by more than the policy's skew bound.
 */
public final class InMemoryLeaseStore implements LeaseStore {

	private final Clock clock;

	private final LeasePolicy policy;

	private final Object lock = new Object();

	private final Map<String, LeaseRecord> active = new HashMap<>();

	private final Map<String, Long> counters = new HashMap<>();

	private final Map<String, Long> highWaterMarks = new HashMap<>();

	private final Map<String, Deque<LeaseRecord>> history = new HashMap<>();

	private final Map<String, LeaseState> terminalStates = new HashMap<>();

	private final Map<String, Stored> idempotency = new HashMap<>();

	private final Map<String, String> leaseIdToKey = new HashMap<>();

	/** Leases found expired by an operation other than the sweep, per program, oldest first: the sweep reports them. */
	private final Map<ProgramScope, Deque<LeaseRecord>> expiredOutbox = new HashMap<>();

	/** Bound of each program's expired outbox (as the Redis store's). */
	private static final int EXPIRED_OUTBOX_LENGTH = 10_000;

	/** Opaque, tamper-evident list cursors (core's one cursor rule), per store. */
	private final ListCursors cursors = new ListCursors();

	/** Attached keys per lease id: name to value, in name order. */
	private final Map<String, TreeMap<String, String>> attached = new HashMap<>();

	/** Which lease id each attached name of a program belongs to. */
	private final Map<ProgramScope, Map<String, String>> attachedOwners = new HashMap<>();

	private final Map<String, StoredAttachment> attachmentIdempotency = new HashMap<>();

	private record Stored(String digest, LeaseResult result, Instant expiresAt) {
	}

	private record StoredAttachment(String digest, AttachmentResult result, Instant expiresAt) {
	}

	/** A store on the given backend clock and policy. */
	public InMemoryLeaseStore(Clock clock, LeasePolicy policy) {
		this.clock = clock;
		this.policy = policy;
	}

	/** A store on the system clock and the default policy. */
	public InMemoryLeaseStore() {
		this(Clock.systemUTC(), LeasePolicy.defaults());
	}

	/** Sets the durable counter of an identity's lock key (test hook for the counter-limit row). */
	public void setFencingCounter(String lockKey, long value) {
		synchronized (this.lock) {
			this.counters.put(lockKey, value);
		}
	}

	@Override
	public LeaseResult acquire(AcquireRequest request) {
		return mutate(request, now -> {
			this.policy.check(request, now);
			String key = request.identity().lockKey();
			LeaseRecord current = currentRecord(key, now);
			if (current != null) {
				return LeaseResult.conflict(now, current.expiresAt().toEpochMilli() - now.toEpochMilli());
			}
			ProgramScope scope = request.identity().scope();
			if (activeLeases(scope, now) >= this.policy.maximumActiveLeases(scope)) {
				return LeaseResult.failure(ResultCode.LEASE_RATE_LIMITED, Reason.ACTIVE_LEASE_LIMIT_REACHED, now);
			}
			long counter = this.counters.getOrDefault(key, 0L);
			long token = FencingTokens.next(counter, now.toEpochMilli(), this.policy.clockSkewBound().toMillis());
			if (token < 0) {
				return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE,
						(FencingTokens.refusal(token) == FencingTokens.Refusal.CLOCK_BEHIND) ? Reason.BACKEND_CLOCK_BEHIND
								: Reason.FENCING_COUNTER_EXHAUSTED,
						now);
			}
			this.counters.put(key, token);
			Instant expires = now.plusMillis(Math.min(request.ttlMs(), request.maximumLifetimeMs()));
			LeaseRecord record = new LeaseRecord(request.identity(), Identifiers.generate("lease"), request.owner(),
					token, now, now, expires, request.ttlMs(), request.maximumLifetimeMs(), request.executionId(),
					request.jobId(), request.traceId(), request.requestId(), request.metadata(), LeaseState.ACTIVE);
			this.active.put(key, record);
			this.leaseIdToKey.put(record.leaseId(), key);
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
			this.active.put(current.lockKey(), renewed);
			return LeaseResult.success(ResultCode.LEASE_RENEWED, renewed, now);
		});
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		return mutateHeld(request, request.handle(),
				(current, now) -> LeaseResult.success(ResultCode.LEASE_RELEASED, end(current, LeaseState.RELEASED), now));
	}

	/** A mutation allowed only to the exact holder; anything else is {@code lease_lost} without mutation. */
	private LeaseResult mutateHeld(MutatingRequest request, LeaseHandle handle,
			BiFunction<LeaseRecord, Instant, LeaseResult> transition) {
		return mutate(request, now -> {
			LeaseRecord current = heldRecord(handle, now);
			if (current == null) {
				return LeaseResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
			}
			return transition.apply(current, now);
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
		return mutate(request, now -> {
			LeaseRecord current = currentRecord(request.identity().lockKey(), now);
			if (current == null || !current.leaseId().equals(request.expectedLeaseId())
					|| current.fencingToken() != request.expectedFencingToken()) {
				return LeaseResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
			}
			return LeaseResult.success(code, end(current, terminal), now);
		});
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		return read(request.deadlineAt(), now -> {
			String key = (request.identity() != null) ? request.identity().lockKey()
					: this.leaseIdToKey.get(request.leaseId());
			LeaseRecord current = (key != null) ? currentRecord(key, now) : null;
			if (current == null || !current.identity().scope().equals(request.scope())
					|| (request.leaseId() != null && !current.leaseId().equals(request.leaseId()))) {
				return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, now);
			}
			return LeaseResult.success(ResultCode.LEASE_INSPECTED, current, now);
		});
	}

	@Override
	public LeasePage list(ListRequest request) {
		synchronized (this.lock) {
			Instant now = backendNow();
			if (now.isAfter(request.deadlineAt())) {
				return LeasePage.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			String after;
			try {
				after = (request.cursor() != null) ? this.cursors.decode(request.cursor(), request.filter()) : "";
			}
			catch (InvalidLeaseRequestException ex) {
				return LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
			}
			TreeMap<String, LeaseRecord> ordered = new TreeMap<>();
			for (String key : new ArrayList<>(this.active.keySet())) {
				LeaseRecord record = currentRecord(key, now);
				if (record != null && matches(request.filter(), record)) {
					ordered.put(key, record);
				}
			}
			int size = this.policy.pageSize(request.pageSize());
			List<LeaseRecord> page = new ArrayList<>();
			String last = null;
			for (Map.Entry<String, LeaseRecord> entry : ordered.tailMap(after, false).entrySet()) {
				if (page.size() == size) {
					return new LeasePage(ResultCode.LEASE_LISTED, Reason.NONE, page, this.cursors.encode(last, request.filter()), now);
				}
				page.add(entry.getValue());
				last = entry.getKey();
			}
			return new LeasePage(ResultCode.LEASE_LISTED, Reason.NONE, page, null, now);
		}
	}

	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		return read(request.deadlineAt(), now -> {
			LeaseHandle handle = request.handle();
			String key = handle.identity().lockKey();
			long highWater = this.highWaterMarks.getOrDefault(key, 0L);
			if (handle.fencingToken() < highWater) {
				return LeaseResult.failure(ResultCode.LEASE_LOST, Reason.TOKEN_BELOW_HIGH_WATER_MARK, now);
			}
			LeaseRecord current = heldRecord(handle, now);
			if (current == null) {
				return LeaseResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
			}
			this.highWaterMarks.put(key, handle.fencingToken());
			return LeaseResult.success(ResultCode.LEASE_COMMIT_AUTHORIZED, current, now);
		});
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		return read(request.deadlineAt(), now -> {
			Stored stored = stored(idempotencyKey(request.operation(), request.identity().lockKey(),
					request.principalId(), request.requestId()), now);
			if (stored == null) {
				return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, now);
			}
			return stored.result().asReplay(currentStateOf(stored.result(), now));
		});
	}

	@Override
	public AttachmentResult putAttached(AttachPutRequest request) {
		return mutateAttached(request.handle(), request.operation(), request.requestId(), request.digest(),
				request.deadlineAt(), (current, now) -> {
					this.policy.check(request, now);
					ProgramScope scope = current.identity().scope();
					Map<String, String> owners = this.attachedOwners.computeIfAbsent(scope, k -> new HashMap<>());
					String owner = owners.get(request.name());
					if (owner != null && !owner.equals(current.leaseId())) {
						if (activeById(owner, now) != null) {
							return AttachmentResult.failure(ResultCode.LEASE_CONFLICT, Reason.ATTACHED_TO_ANOTHER_LEASE,
									now);
						}
						owners.remove(request.name());
					}
					TreeMap<String, String> keys = this.attached.computeIfAbsent(current.leaseId(), k -> new TreeMap<>());
					if (!keys.containsKey(request.name()) && keys.size() >= this.policy.maximumAttachedKeys()) {
						return AttachmentResult.failure(ResultCode.LEASE_RATE_LIMITED, Reason.ATTACHED_KEY_LIMIT_REACHED,
								now);
					}
					keys.put(request.name(), request.value());
					owners.put(request.name(), current.leaseId());
					return AttachmentResult.done(ResultCode.ATTACHMENT_STORED, request.name(), now);
				});
	}

	@Override
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return mutateAttached(request.handle(), request.operation(), request.requestId(), request.digest(),
				request.deadlineAt(), (current, now) -> {
					TreeMap<String, String> keys = this.attached.get(current.leaseId());
					if (keys == null || keys.remove(request.name()) == null) {
						return AttachmentResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.ATTACHMENT_NOT_FOUND, now);
					}
					this.attachedOwners.get(current.identity().scope()).remove(request.name());
					return AttachmentResult.done(ResultCode.ATTACHMENT_DELETED, request.name(), now);
				});
	}

	@Override
	public AttachmentResult getAttached(AttachGetRequest request) {
		return readAttached(request.deadlineAt(), now -> {
			String owner = this.attachedOwners.getOrDefault(request.scope(), Map.of()).get(request.name());
			LeaseRecord lease = (owner != null) ? activeById(owner, now) : null;
			if (lease == null || !lease.identity().scope().equals(request.scope())) {
				return AttachmentResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.ATTACHMENT_NOT_FOUND, now);
			}
			return AttachmentResult.read(request.name(), this.attached.get(owner).get(request.name()), owner, now);
		});
	}

	@Override
	public AttachmentResult listAttached(AttachListRequest request) {
		return readAttached(request.deadlineAt(), now -> {
			LeaseRecord lease = activeById(request.leaseId(), now);
			if (lease == null || !lease.identity().scope().equals(request.scope())) {
				return AttachmentResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, now);
			}
			TreeMap<String, String> keys = this.attached.get(request.leaseId());
			return AttachmentResult.listed(request.leaseId(),
					(keys != null) ? new ArrayList<>(keys.keySet()) : List.of(), now);
		});
	}

	/** The active record of a lease id at {@code now} (expiring it first when due), or {@code null}. */
	private LeaseRecord activeById(String leaseId, Instant now) {
		String key = this.leaseIdToKey.get(leaseId);
		LeaseRecord current = (key != null) ? currentRecord(key, now) : null;
		return (current != null && current.leaseId().equals(leaseId)) ? current : null;
	}

	private interface AttachmentDecision {

		AttachmentResult decide(LeaseRecord held, Instant now);

	}

	/** An attached-key mutation of the exact holder with deadline and idempotency handling (like {@link #mutate}). */
	private AttachmentResult mutateAttached(LeaseHandle handle, Operation operation, String requestId, String digest,
			Instant deadlineAt, AttachmentDecision decision) {
		synchronized (this.lock) {
			Instant now = backendNow();
			try {
				this.policy.checkDeadline(deadlineAt, now);
			}
			catch (InvalidLeaseRequestException ex) {
				return AttachmentResult.invalid(ex);
			}
			if (now.isAfter(deadlineAt)) {
				return AttachmentResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			String idemKey = idempotencyKey(operation, handle.identity().lockKey(), handle.ownerPrincipalId(),
					requestId);
			StoredAttachment stored = this.attachmentIdempotency.get(idemKey);
			if (stored != null && !now.isBefore(stored.expiresAt())) {
				this.attachmentIdempotency.remove(idemKey);
				stored = null;
			}
			if (stored != null) {
				if (!stored.digest().equals(digest)) {
					return AttachmentResult.failure(ResultCode.IDEMPOTENCY_CONFLICT, Reason.NONE, now);
				}
				return stored.result().asReplay();
			}
			LeaseRecord current = heldRecord(handle, now);
			if (current == null) {
				return AttachmentResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
			}
			AttachmentResult result;
			try {
				result = decision.decide(current, now);
			}
			catch (InvalidLeaseRequestException ex) {
				return AttachmentResult.invalid(ex);
			}
			if (result.isSuccess()) {
				this.attachmentIdempotency.put(idemKey,
						new StoredAttachment(digest, result, now.plus(this.policy.idempotencyRetention())));
			}
			return result;
		}
	}

	private AttachmentResult readAttached(Instant deadlineAt, Function<Instant, AttachmentResult> read) {
		synchronized (this.lock) {
			Instant now = backendNow();
			if (now.isAfter(deadlineAt)) {
				return AttachmentResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			return read.apply(now);
		}
	}

	/**
	 * Reports the leases other operations found expired first (the expired outbox), then ends the program's due
	 * leases, earliest {@code expires_at} first (ties by lock key), at most the batch limit in all; the same decision
	 * the Redis store's sweep function takes in one script.
	 */
	@Override
	public SweepResult sweepExpired(SweepRequest request) {
		synchronized (this.lock) {
			Instant now = backendNow();
			if (now.isAfter(request.deadlineAt())) {
				return SweepResult.failure(SweepResult.Status.DEADLINE_EXCEEDED, now);
			}
			List<LeaseRecord> ended = new ArrayList<>();
			Deque<LeaseRecord> outbox = this.expiredOutbox.getOrDefault(request.scope(), new ArrayDeque<>());
			while (!outbox.isEmpty() && ended.size() < request.batchLimit()) {
				ended.add(outbox.removeFirst());
			}
			List<LeaseRecord> due = new ArrayList<>();
			for (LeaseRecord record : this.active.values()) {
				if (record.identity().scope().equals(request.scope()) && !record.isAuthoritativeAt(now)) {
					due.add(record);
				}
			}
			due.sort(Comparator.comparing(LeaseRecord::expiresAt).thenComparing(LeaseRecord::lockKey));
			int room = request.batchLimit() - ended.size();
			for (LeaseRecord record : due.subList(0, Math.min(due.size(), room))) {
				ended.add(end(record, LeaseState.EXPIRED));
			}
			boolean more = due.size() > room || !outbox.isEmpty();
			return new SweepResult(SweepResult.Status.SWEPT, ended, ended.size(), 0, more,
					activeLeases(request.scope(), now), now);
		}
	}

	/** Active, unexpired leases of a program at backend time (the reference model counts; Redis keeps a ZCARD). */
	private long activeLeases(ProgramScope scope, Instant now) {
		long count = 0;
		for (LeaseRecord record : this.active.values()) {
			if (record.isAuthoritativeAt(now) && record.identity().scope().equals(scope)) {
				count++;
			}
		}
		return count;
	}

	/** Runs a non-idempotent operation at one linearization point after the backend-time deadline check. */
	private LeaseResult read(Instant deadlineAt, Decision decision) {
		synchronized (this.lock) {
			Instant now = backendNow();
			if (now.isAfter(deadlineAt)) {
				return LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			return decision.decide(now);
		}
	}

	/** Backend time at the contract's millisecond precision. */
	private Instant backendNow() {
		return this.clock.instant().truncatedTo(ChronoUnit.MILLIS);
	}

	private interface Decision {

		LeaseResult decide(Instant now);

	}

	/** Runs one mutating operation at one linearization point with deadline and idempotency handling. */
	private LeaseResult mutate(MutatingRequest request, Decision decision) {
		synchronized (this.lock) {
			Instant now = backendNow();
			try {
				this.policy.checkDeadline(request.deadlineAt(), now);
			}
			catch (InvalidLeaseRequestException ex) {
				return LeaseResult.invalid(ex);
			}
			if (now.isAfter(request.deadlineAt())) {
				return LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			String idemKey = idempotencyKey(request.operation(), request.identity().lockKey(),
					request.principalId(), request.requestId());
			Stored stored = stored(idemKey, now);
			if (stored != null) {
				if (!stored.digest().equals(request.digest())) {
					return LeaseResult.failure(ResultCode.IDEMPOTENCY_CONFLICT, Reason.NONE, now);
				}
				return stored.result().asReplay(currentStateOf(stored.result(), now));
			}
			LeaseResult result;
			try {
				result = decision.decide(now);
			}
			catch (InvalidLeaseRequestException ex) {
				return LeaseResult.invalid(ex);
			}
			if (result.isSuccess()) {
				this.idempotency.put(idemKey,
						new Stored(request.digest(), result, now.plus(this.policy.idempotencyRetention())));
			}
			return result;
		}
	}

	private @Nullable Stored stored(String idemKey, Instant now) {
		Stored stored = this.idempotency.get(idemKey);
		if (stored != null && !now.isBefore(stored.expiresAt())) {
			this.idempotency.remove(idemKey);
			return null;
		}
		return stored;
	}

	private @Nullable LeaseState currentStateOf(LeaseResult result, Instant now) {
		if (result.lease() == null) {
			return null;
		}
		LeaseRecord original = result.lease();
		LeaseRecord current = currentRecord(original.lockKey(), now);
		if (current != null && current.leaseId().equals(original.leaseId())) {
			return LeaseState.ACTIVE;
		}
		return this.terminalStates.getOrDefault(original.leaseId(), LeaseState.EXPIRED);
	}

	/** The active record of a key, after expiring it if backend time has reached {@code expires_at}. */
	private @Nullable LeaseRecord currentRecord(String key, Instant now) {
		LeaseRecord record = this.active.get(key);
		if (record != null && !record.isAuthoritativeAt(now)) {
			LeaseRecord ended = end(record, LeaseState.EXPIRED);
			Deque<LeaseRecord> outbox = this.expiredOutbox.computeIfAbsent(record.identity().scope(),
					(scope) -> new ArrayDeque<>());
			outbox.addLast(ended);
			while (outbox.size() > EXPIRED_OUTBOX_LENGTH) {
				outbox.removeFirst();
			}
			return null;
		}
		return record;
	}

	private @Nullable LeaseRecord heldRecord(LeaseHandle handle, Instant now) {
		LeaseRecord current = currentRecord(handle.identity().lockKey(), now);
		return (current != null && current.isHeldBy(handle)) ? current : null;
	}

	/** Moves the active record to bounded terminal history; the counter is never touched. */
	private LeaseRecord end(LeaseRecord record, LeaseState terminal) {
		LeaseRecord ended = record.withState(terminal);
		this.active.remove(record.lockKey());
		TreeMap<String, String> keys = this.attached.remove(record.leaseId());
		if (keys != null) {
			// the ending transition deletes every attached key of exactly this lease, in the same step
			Map<String, String> owners = this.attachedOwners.get(record.identity().scope());
			for (String name : keys.keySet()) {
				owners.remove(name, record.leaseId());
			}
		}
		this.terminalStates.put(record.leaseId(), terminal);
		Deque<LeaseRecord> entries = this.history.computeIfAbsent(record.lockKey(), k -> new ArrayDeque<>());
		entries.addFirst(ended);
		while (entries.size() > this.policy.historyLength()) {
			entries.removeLast();
		}
		return ended;
	}

	/** Terminal history of an identity, newest first (bounded by the policy's history length). */
	public List<LeaseRecord> history(String lockKey) {
		synchronized (this.lock) {
			return List.copyOf(this.history.getOrDefault(lockKey, new ArrayDeque<>()));
		}
	}

	private static boolean matches(ListFilter filter, LeaseRecord record) {
		if (!record.identity().scope().equals(filter.scope())) {
			return false;
		}
		if (filter instanceof ListFilter.ByOwner owner) {
			return record.owner().principalId().equals(owner.ownerPrincipalId());
		}
		if (filter instanceof ListFilter.ByTarget target) {
			return record.identity().targetNamespace().equals(target.targetNamespace())
					&& record.identity().targetId().equals(target.targetId());
		}
		return true;
	}

	private static String idempotencyKey(Operation operation, String lockKey, String principal, String requestId) {
		return operation.wireName() + "\n" + lockKey + "\n" + principal + "\n" + requestId;
	}

}
