package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.AttachedKeyOperations;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseStore;

/**
 * The thin service the job aspect calls: builds requests with fresh request ids and finite deadlines, resolves
 * {@code lease_outcome_unknown} acquisitions by request id, and records metrics and an observation per operation.
 *
 * <p>Contract: every mutating request carries a globally unique {@code request_id} and a finite
 * {@code deadline_at}; a timeout after submission is outcome-unknown until resolved by request id. This service
 * never throws a backend exception: a store that throws anyway is answered, at this one place, with
 * {@code lease_outcome_unknown} for a mutation (acquire, renew, release, force-release, revoke: the call may have
 * reached the backend and committed, so the caller resolves by request id), {@code lease_backend_unavailable} for a
 * read or a commit authorization, and {@code invalid_lease_request} for invalid input. Meter and
 * observation tags are only {@code operation} and {@code code} (never a lock key, target id or secret).
 */
public final class LeaseService implements AttachedKeyOperations {

	/** Timer of every store operation, tagged {@code operation} and {@code code}. */
	public static final String OPERATION_TIMER = "starintel.lease.operation";

	/** Observation name of acquire, renew and release. */
	public static final String OBSERVATION = "starintel.lease.operation";

	private static final Logger logger = LoggerFactory.getLogger(LeaseService.class);

	/**
	 * Contract: "If a network timeout occurs after submission, the result is outcome-unknown until resolved by
	 * request_id". A store that throws on a mutation may have committed it, so that is the answer, never
	 * {@code lease_backend_unavailable}.
	 */
	private static final ResultCode MUTATION_THREW = ResultCode.LEASE_OUTCOME_UNKNOWN;

	private final LeaseStore store;

	private final LeaseStore unaudited;

	private final LeaseStore operations = new ObservedStore();

	private final Clock clock;

	private final Duration operationTimeout;

	private final MeterRegistry meters;

	private final ObservationRegistry observations;

	/** Timers by operation, then by result code ordinal: looked up without building a key per call. */
	private final java.util.Map<String, Timer[]> timers = new java.util.concurrent.ConcurrentHashMap<>();

	/**
	 * A service over a store.
	 * @param store the lease store
	 * @param clock the local clock, used only for request deadlines (never for authority)
	 * @param operationTimeout how far ahead each request's {@code deadline_at} lies
	 * @param meters where timers go ({@code null}: nowhere)
	 * @param observations where observations go ({@code null}: no-op)
	 */
	public LeaseService(LeaseStore store, Clock clock, Duration operationTimeout, @Nullable MeterRegistry meters,
			@Nullable ObservationRegistry observations) {
		this(store, store, clock, operationTimeout, meters, observations);
	}

	/**
	 * A service over the audited store, with the undecorated store for health probes (which are not lease requests
	 * and produce no audit events).
	 * @param store the (audited) lease store every operation goes to
	 * @param unaudited the same store without audit, used only by {@link #probe(LockIdentity)}
	 * @param clock the local clock, used only for request deadlines (never for authority)
	 * @param operationTimeout how far ahead each request's {@code deadline_at} lies
	 * @param meters where timers go ({@code null}: nowhere)
	 * @param observations where observations go ({@code null}: no-op)
	 */
	public LeaseService(LeaseStore store, LeaseStore unaudited, Clock clock, Duration operationTimeout,
			@Nullable MeterRegistry meters, @Nullable ObservationRegistry observations) {
		this.store = Objects.requireNonNull(store, "store");
		this.unaudited = Objects.requireNonNull(unaudited, "unaudited");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.operationTimeout = Objects.requireNonNull(operationTimeout, "operationTimeout");
		this.meters = (meters != null) ? meters : new CompositeMeterRegistry();
		this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
	}

	/** The store this service calls. */
	public LeaseStore store() {
		return this.store;
	}

	/**
	 * Every SPI verb of the (audited) store with this service's timer ({@value #OPERATION_TIMER}, tags
	 * {@code operation} and {@code code}), an observation per call, and typed exception mapping: a store that throws
	 * answers {@code invalid_lease_request} for invalid input, {@code lease_outcome_unknown} for the mutations
	 * (acquire, renew, release, force-release, revoke: they may have committed) and {@code lease_backend_unavailable}
	 * for reads and commit authorization. The fence guard, the fenced
	 * writers and the admin endpoint call the store through this view.
	 */
	public LeaseStore operations() {
		return this.operations;
	}

	/**
	 * A health probe: inspects an identity on the undecorated store (timed as {@code probe}, no audit event: a probe is
	 * not a lease request of any caller).
	 */
	public LeaseResult probe(LockIdentity identity) {
		return timedTypedResult("probe", () -> this.unaudited
			.inspect(InspectRequest.byIdentity(identity, Identifiers.generate("correlation"), deadline())));
	}

	/** The meter registry (a no-op composite when none was given). */
	public MeterRegistry meters() {
		return this.meters;
	}

	/**
	 * acquire-if-free with a fresh request id; an outcome-unknown reply is resolved once by that request id
	 * (contract: resolve by request_id before more work).
	 */
	public LeaseResult acquire(LockIdentity identity, LeaseOwner owner, Duration ttl, Duration maximumLifetime,
			String executionId, String jobId, String traceId, LeaseMetadata metadata) {
		return observe("acquire", MUTATION_THREW, () -> {
			AcquireRequest request = new AcquireRequest(identity, Identifiers.generate("request"), deadline(), owner,
					ttl.toMillis(), maximumLifetime.toMillis(), executionId, jobId, traceId, metadata);
			LeaseResult result = this.store.acquire(request);
			if (result.code() == ResultCode.LEASE_OUTCOME_UNKNOWN) {
				LeaseResult resolved = this.store.resolve(ResolveRequest.of(request, deadline()));
				if (resolved.code() != ResultCode.LEASE_NOT_FOUND && resolved.code() != ResultCode.LEASE_OUTCOME_UNKNOWN
						&& resolved.code() != ResultCode.LEASE_BACKEND_UNAVAILABLE) {
					return resolved;
				}
			}
			return result;
		});
	}

	/**
	 * renew-if-owner with a fresh request id (contract: renewal never changes the token or maximum lifetime). A
	 * success received after the request's deadline is answered {@code lease_outcome_unknown}: contract: a renewal
	 * response received after the local deadline does not grant authority.
	 */
	public LeaseResult renew(LeaseHandle handle) {
		return renew(handle, null);
	}

	/**
	 * As {@link #renew(LeaseHandle)}, with the request deadline brought forward to {@code notAfter} when that is
	 * earlier: the renewal scheduler passes {@code expires_at} minus its safety margin, so a backend that does not
	 * answer is noticed before the lease expires.
	 */
	public LeaseResult renew(LeaseHandle handle, @Nullable Instant notAfter) {
		return observe("renew", MUTATION_THREW, () -> {
			Instant deadline = deadline();
			if (notAfter != null && notAfter.isBefore(deadline)) {
				deadline = notAfter;
			}
			Instant effective = deadline;
			LeaseResult result = this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), effective));
			if (result.isSuccess() && this.clock.instant().isAfter(effective)) {
				return LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, result.decidedAt());
			}
			return result;
		});
	}

	/**
	 * Renews several leases in as few backend calls as the store allows ({@link LeaseStore#renewAll}: the Redis
	 * store renews the leases of one program in one call); each lease has the meaning of
	 * {@link #renew(LeaseHandle, Instant)} with its own {@code notAfter}. One result per handle, in order.
	 */
	public List<LeaseResult> renewAll(List<LeaseHandle> handles, List<Instant> notAfter) {
		List<RenewRequest> requests = new ArrayList<>(handles.size());
		Instant deadline = deadline();
		for (int i = 0; i < handles.size(); i++) {
			Instant effective = notAfter.get(i).isBefore(deadline) ? notAfter.get(i) : deadline;
			requests.add(new RenewRequest(handles.get(i), Identifiers.generate("request"), effective));
		}
		List<LeaseResult> results;
		long start = System.nanoTime();
		try {
			results = this.store.renewAll(requests);
		}
		catch (RuntimeException ex) {
			logger.warn("Lease store threw on renew_batch ({}); answering lease_outcome_unknown",
					ex.getClass().getName());
			results = null;
		}
		Instant now = this.clock.instant();
		List<LeaseResult> out = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			LeaseResult result = (results != null && results.size() == requests.size()) ? results.get(i) : null;
			if (result == null) {
				// the batch may have reached the backend: as for a single renew, the outcome is unknown
				result = LeaseResult.failure(MUTATION_THREW, Reason.BACKEND_UNREACHABLE, null);
			}
			else if (result.isSuccess() && now.isAfter(requests.get(i).deadlineAt())) {
				result = LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, result.decidedAt());
			}
			out.add(result);
		}
		long perLease = (System.nanoTime() - start) / Math.max(1, requests.size());
		for (LeaseResult result : out) {
			timer("renew", result.code()).record(perLease, java.util.concurrent.TimeUnit.NANOSECONDS);
		}
		return out;
	}

	/** release-if-owner with a fresh request id (contract: compare-and-delete, never a successor). */
	public LeaseResult release(LeaseHandle handle) {
		return observe("release", MUTATION_THREW,
				() -> this.store.release(new ReleaseRequest(handle, Identifiers.generate("request"), deadline())));
	}

	/** Inspect the active lease of an identity (used by the health indicator and loss diagnosis). */
	public LeaseResult inspect(LockIdentity identity) {
		return timedTypedResult("inspect", () -> this.store
			.inspect(InspectRequest.byIdentity(identity, Identifiers.generate("correlation"), deadline())));
	}

	/**
	 * put-with-lease (docs/attachments.md) with a fresh request id: stores {@code value} under {@code name}, attached
	 * to the exact lease of {@code handle}; deleted with the lease by every ending transition.
	 */
	@Override
	public AttachmentResult putAttached(LeaseHandle handle, String name, String value) {
		return attached("attach_put", () -> this.store
			.putAttached(new AttachPutRequest(handle, name, value, Identifiers.generate("request"), deadline())));
	}

	/** Reads an attached key of a program (visible only while its lease is active). */
	@Override
	public AttachmentResult getAttached(ProgramScope scope, String name) {
		return attached("attach_get", () -> this.store
			.getAttached(new AttachGetRequest(scope, name, Identifiers.generate("correlation"), deadline())));
	}

	/** Deletes a key attached to the exact lease of {@code handle}, with a fresh request id. */
	@Override
	public AttachmentResult deleteAttached(LeaseHandle handle, String name) {
		return attached("attach_delete", () -> this.store
			.deleteAttached(new AttachDeleteRequest(handle, name, Identifiers.generate("request"), deadline())));
	}

	/** The names of the keys attached to an active lease of a program, read at one backend instant. */
	@Override
	public AttachmentResult listAttached(ProgramScope scope, String leaseId) {
		return attached("attach_list", () -> this.store
			.listAttached(new AttachListRequest(scope, leaseId, Identifiers.generate("correlation"), deadline())));
	}

	/** An attached-key call, timed like the lease operations, with typed exception mapping. */
	private AttachmentResult attached(String operation, Supplier<AttachmentResult> call) {
		long start = System.nanoTime();
		AttachmentResult result;
		try {
			result = call.get();
			if (result == null) {
				result = AttachmentResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE,
						null);
			}
		}
		catch (InvalidLeaseRequestException ex) {
			result = AttachmentResult.invalid(ex);
		}
		catch (RuntimeException ex) {
			ResultCode code = operation.equals("attach_put") || operation.equals("attach_delete")
					? ResultCode.LEASE_OUTCOME_UNKNOWN : ResultCode.LEASE_BACKEND_UNAVAILABLE;
			logger.warn("Lease store threw on {} ({}); answering {}", operation, ex.getClass().getName(),
					code.wireName());
			result = AttachmentResult.failure(code, Reason.BACKEND_UNREACHABLE, null);
		}
		record(operation, result.code(), System.nanoTime() - start);
		return result;
	}

	private Instant deadline() {
		return this.clock.instant().plus(this.operationTimeout);
	}

	private LeaseResult observe(String operation, Supplier<LeaseResult> call) {
		return observe(operation, ResultCode.LEASE_BACKEND_UNAVAILABLE, call);
	}

	private LeaseResult observe(String operation, ResultCode whenThrown, Supplier<LeaseResult> call) {
		Observation observation = Observation.createNotStarted(OBSERVATION, this.observations)
			.lowCardinalityKeyValue("operation", operation)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			LeaseResult result = timedTypedResult(operation, call, whenThrown);
			observation.lowCardinalityKeyValue("code", result.code().wireName());
			return result;
		}
		finally {
			observation.stop();
		}
	}

	private LeaseResult timedTypedResult(String operation, Supplier<LeaseResult> call) {
		return timedTypedResult(operation, call, ResultCode.LEASE_BACKEND_UNAVAILABLE);
	}

	private LeaseResult timedTypedResult(String operation, Supplier<LeaseResult> call, ResultCode whenThrown) {
		long start = System.nanoTime();
		LeaseResult result = typedResult(operation, call, whenThrown);
		record(operation, result.code(), System.nanoTime() - start);
		return result;
	}

	private void record(String operation, ResultCode code, long elapsedNanos) {
		timer(operation, code).record(elapsedNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
	}

	/** The cached timer of (operation, code), registered on first use. */
	private Timer timer(String operation, ResultCode code) {
		Timer[] byCode = this.timers.computeIfAbsent(operation, (key) -> new Timer[ResultCode.values().length]);
		Timer timer = byCode[code.ordinal()];
		if (timer == null) {
			timer = Timer.builder(OPERATION_TIMER)
				.description("Lease store operations by operation and result code")
				.tag("operation", operation)
				.tag("code", code.wireName())
				.register(this.meters); // idempotent: a racing thread gets the same meter
			byCode[code.ordinal()] = timer;
		}
		return timer;
	}

	private LeaseResult typedResult(String operation, Supplier<LeaseResult> call, ResultCode whenThrown) {
		try {
			LeaseResult result = call.get();
			return (result != null) ? result
					: LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
		}
		catch (InvalidLeaseRequestException ex) {
			return LeaseResult.invalid(ex);
		}
		catch (RuntimeException ex) {
			// contract: no raw backend error crosses the boundary; the type only, never the message (may hold keys)
			logger.warn("Lease store threw on {} ({}); answering {}", operation, ex.getClass().getName(),
					whenThrown.wireName());
			return LeaseResult.failure(whenThrown, Reason.BACKEND_UNREACHABLE, null);
		}
	}

	/** The observed, exception-mapped view of the store ({@link #operations()}). */
	private final class ObservedStore implements LeaseStore {

		@Override
		public LeaseResult acquire(AcquireRequest request) {
			return observe("acquire", MUTATION_THREW, () -> LeaseService.this.store.acquire(request));
		}

		@Override
		public LeaseResult acquireWaiting(AcquireRequest request, Duration wait) {
			return observe("acquire", MUTATION_THREW, () -> LeaseService.this.store.acquireWaiting(request, wait));
		}

		@Override
		public LeaseResult renew(RenewRequest request) {
			return observe("renew", MUTATION_THREW, () -> LeaseService.this.store.renew(request));
		}

		@Override
		public LeaseResult release(ReleaseRequest request) {
			return observe("release", MUTATION_THREW, () -> LeaseService.this.store.release(request));
		}

		@Override
		public LeaseResult inspect(InspectRequest request) {
			return observe("inspect", () -> LeaseService.this.store.inspect(request));
		}

		@Override
		public LeasePage list(ListRequest request) {
			Observation observation = Observation.createNotStarted(OBSERVATION, LeaseService.this.observations)
				.lowCardinalityKeyValue("operation", "list")
				.start();
			long start = System.nanoTime();
			LeasePage page;
			try (Observation.Scope scope = observation.openScope()) {
				page = LeaseService.this.store.list(request);
				if (page == null) {
					page = LeasePage.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
				}
			}
			catch (InvalidLeaseRequestException ex) {
				page = LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
			}
			catch (RuntimeException ex) {
				logger.warn("Lease store threw on list ({}); answering lease_backend_unavailable",
						ex.getClass().getName());
				page = LeasePage.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
			}
			finally {
				observation.stop();
			}
			observation.lowCardinalityKeyValue("code", page.code().wireName());
			record("list", page.code(), System.nanoTime() - start);
			return page;
		}

		@Override
		public LeaseResult forceRelease(AdminRequest request) {
			return observe("force_release", MUTATION_THREW, () -> LeaseService.this.store.forceRelease(request));
		}

		@Override
		public LeaseResult revoke(AdminRequest request) {
			return observe("revoke", MUTATION_THREW, () -> LeaseService.this.store.revoke(request));
		}

		@Override
		public LeaseResult authorizeCommit(CommitRequest request) {
			return observe("authorize_commit", () -> LeaseService.this.store.authorizeCommit(request));
		}

		@Override
		public LeaseResult resolve(ResolveRequest request) {
			return observe("resolve", () -> LeaseService.this.store.resolve(request));
		}

		@Override
		public AttachmentResult putAttached(AttachPutRequest request) {
			return attached("attach_put", () -> LeaseService.this.store.putAttached(request));
		}

		@Override
		public AttachmentResult getAttached(AttachGetRequest request) {
			return attached("attach_get", () -> LeaseService.this.store.getAttached(request));
		}

		@Override
		public AttachmentResult deleteAttached(AttachDeleteRequest request) {
			return attached("attach_delete", () -> LeaseService.this.store.deleteAttached(request));
		}

		@Override
		public AttachmentResult listAttached(AttachListRequest request) {
			return attached("attach_list", () -> LeaseService.this.store.listAttached(request));
		}

		@Override
		public boolean writesAdminAuditAtomically() {
			return LeaseService.this.store.writesAdminAuditAtomically();
		}

		/** The store's sweep (the expiry sweeper's call); a store that throws answers backend_unavailable. */
		@Override
		public SweepResult sweepExpired(SweepRequest request) {
			try {
				return LeaseService.this.store.sweepExpired(request);
			}
			catch (RuntimeException ex) {
				logger.warn("Lease store threw on sweep ({})", ex.getClass().getName());
				return SweepResult.failure(SweepResult.Status.BACKEND_UNAVAILABLE, null);
			}
		}

	}

}
