package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.AttachedKeyOperations;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.audit.internal.AuditContext;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.FatalErrors;
import io.starintel.lease.core.internal.LateRenewal;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.LeaseStore;

/**
 * The one operations facade over the (audited) lease store: every SPI verb, taking the core request records, each
 * observed once ({@link LeaseObservationDocumentation#LEASE_OPERATION}, which times it as {@value #OPERATION_TIMER}),
 * and mapped to a typed result.
 * Jobs, the fence guard, the health indicator, the sweeper, the admin endpoint and the worker API all call it.
 *
 * <p>What the service fills in for a caller that builds a request now: {@link #newId()} (a fresh request or
 * correlation id) and {@link #deadline()} (the local clock plus the operation timeout).
 *
 * <p>Contract: every mutating request carries a globally unique {@code request_id} and a finite
 * {@code deadline_at}; a timeout after submission is outcome-unknown until resolved by request id. This service
 * never throws a backend exception: a store that throws anyway (an {@link Error} such as an {@link AssertionError}
 * included; only a {@link FatalErrors fatal} {@link VirtualMachineError} is rethrown) is answered, at this one place,
 * with {@code lease_outcome_unknown} for a mutation (acquire, renew, release, force-release, revoke, attached put and
 * delete: the call may have reached the backend and committed, so the caller resolves by request id),
 * {@code lease_backend_unavailable} for a read or a commit authorization, and {@code invalid_lease_request} for
 * invalid input; the observation's error is then what the store threw (the timer's {@code error} tag: its simple
 * class name, never its message). Meter and observation tags are only {@code operation} and {@code code} (plus the
 * meter handler's {@code error}), and {@code program} when opted in (never a lock key, target id or secret).
 */
public final class LeaseService implements AttachedKeyOperations {

	/**
	 * Timer of every store operation, tagged {@code operation}, {@code code} and {@code error} (the simple class name
	 * of what the store threw, {@code none} when it answered): the meter of the {@link #OBSERVATION} observations
	 * (Micrometer's meter handler), never registered by hand.
	 */
	public static final String OPERATION_TIMER = "starintel.lease.operation";

	/** Observation name of every operation ({@link LeaseObservationDocumentation#LEASE_OPERATION}). */
	public static final String OBSERVATION = "starintel.lease.operation";

	/**
	 * Contract: "If a network timeout occurs after submission, the result is outcome-unknown until resolved by
	 * request_id". A store that throws on a mutation may have committed it, so that is the answer, never
	 * {@code lease_backend_unavailable}.
	 */
	static final ResultCode MUTATION_THREW = ResultCode.LEASE_OUTCOME_UNKNOWN;

	private static final Logger logger = LoggerFactory.getLogger(LeaseService.class);

	private final LeaseStore store;

	private final LeaseStore unaudited;

	private final Clock clock;

	private final Duration operationTimeout;

	private final OperationRunner runner;

	/**
	 * A service over a store.
	 * @param store the lease store
	 * @param clock the local clock, used only for request deadlines (never for authority)
	 * @param operationTimeout how far ahead {@link #deadline()} lies
	 * @param meters where the operation timers go when {@code observations} is {@code null} or no-op (otherwise
	 * {@code observations}' meter handler records them, as Spring Boot registers it)
	 * @param observations where observations go ({@code null}: only the timers in {@code meters})
	 */
	public LeaseService(LeaseStore store, Clock clock, Duration operationTimeout, @Nullable MeterRegistry meters,
			@Nullable ObservationRegistry observations) {
		this(store, store, clock, operationTimeout, meters, observations);
	}

	/**
	 * A service over the audited store, with the undecorated store for health probes (which are not lease requests
	 * and produce no audit events).
	 * @param store the (audited) lease store every operation goes to
	 * @param unaudited the same store without audit, used only by {@link #probe(LockIdentity)} and
	 * {@link #activePrograms(int)}
	 * @param clock the local clock, used only for request deadlines (never for authority)
	 * @param operationTimeout how far ahead {@link #deadline()} lies
	 * @param meters where the operation timers go when {@code observations} is {@code null} or no-op (otherwise
	 * {@code observations}' meter handler records them, as Spring Boot registers it)
	 * @param observations where observations go ({@code null}: only the timers in {@code meters})
	 */
	public LeaseService(LeaseStore store, LeaseStore unaudited, Clock clock, Duration operationTimeout,
			@Nullable MeterRegistry meters, @Nullable ObservationRegistry observations) {
		this.store = Objects.requireNonNull(store, "store");
		this.unaudited = Objects.requireNonNull(unaudited, "unaudited");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.operationTimeout = Objects.requireNonNull(operationTimeout, "operationTimeout");
		this.runner = new OperationRunner(observations(meters, observations));
	}

	private final List<Consumer<String>> administrativeEnds = new CopyOnWriteArrayList<>();

	/**
	 * The registry the operations are observed in: the given one; without one (or a no-op one), a registry of its
	 * own that only times them in {@code meters} (Micrometer's meter handler), so that the timer has one source.
	 */
	private static ObservationRegistry observations(@Nullable MeterRegistry meters,
			@Nullable ObservationRegistry observations) {
		if (observations != null && !observations.isNoop()) {
			return observations;
		}
		if (meters == null) {
			return ObservationRegistry.NOOP;
		}
		ObservationRegistry timersOnly = ObservationRegistry.create();
		timersOnly.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		return timersOnly;
	}

	/**
	 * Replaces the default convention of the operation observations
	 * ({@link DefaultLeaseOperationObservationConvention}: keys {@code operation} and {@code code}).
	 */
	public void setObservationConvention(LeaseOperationObservationConvention convention) {
		this.runner.convention(Objects.requireNonNull(convention, "convention"));
	}

	/** A fresh, globally unique id for a request's {@code request_id} (or a read's {@code correlation_id}). */
	public String newId() {
		return Identifiers.generate("request");
	}

	/** The deadline of a request sent now: the local clock plus the operation timeout. */
	public Instant deadline() {
		return this.clock.instant().plus(this.operationTimeout);
	}

	/**
	 * Whether {@code deadline} (one of {@link #deadline()}) has passed on this service's clock: a follow-up call that
	 * shares an earlier request's deadline (the resolve of an outcome-unknown acquire) is not worth sending then.
	 */
	public boolean hasPassed(Instant deadline) {
		return !this.clock.instant().isBefore(deadline);
	}

	/** acquire-if-free (one attempt; the caller resolves an outcome-unknown answer by the request's id). */
	public LeaseResult acquire(AcquireRequest request) {
		return this.runner.observed("acquire", request.identity().programId(), MUTATION_THREW,
				() -> this.store.acquire(request));
	}

	/**
	 * acquire-if-free with a bounded wait ({@link LeaseStore#acquireWaiting}): conflicts are retried with the same
	 * request until the earlier of {@code wait} and the request deadline; one request, one result.
	 */
	public LeaseResult acquire(AcquireRequest request, Duration wait) {
		return this.runner.observed("acquire", request.identity().programId(), MUTATION_THREW,
				() -> this.store.acquireWaiting(request, wait));
	}

	/**
	 * renew-if-owner (contract: renewal never changes the token or maximum lifetime). A success received after the
	 * request's deadline is answered {@code lease_outcome_unknown}: contract: a renewal response received after the
	 * local deadline does not grant authority.
	 */
	public LeaseResult renew(RenewRequest request) {
		return this.runner.observed("renew", request.identity().programId(), MUTATION_THREW, () -> {
			// the audited store applies the rule too (its event has the answered code); here for an unaudited store
			return LateRenewal.answer(this.store.renew(request), request, this.clock.instant());
		});
	}

	/**
	 * Renews several leases in as few backend calls as the store allows ({@link LeaseStore#renewAll}: the Redis
	 * store renews the leases of one program in one call); each has the meaning of {@link #renew(RenewRequest)}. One
	 * result per request, in order.
	 */
	public List<LeaseResult> renewAll(List<RenewRequest> requests) {
		return RenewalBatch.renew(this.store, requests, this.clock, this.runner);
	}

	/** release-if-owner (contract: compare-and-delete, never a successor). */
	public LeaseResult release(ReleaseRequest request) {
		return this.runner.observed("release", request.identity().programId(), MUTATION_THREW,
				() -> this.store.release(request));
	}

	/** Inspects the active lease of an identity or lease id. */
	public LeaseResult inspect(InspectRequest request) {
		return this.runner.observed("inspect", request.scope().programId(), ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> this.store.inspect(request));
	}

	/**
	 * Inspect for a caller that may see only some leases (the worker API: a worker sees its own lease only): a
	 * success whose lease is not {@code visible} is answered {@code lease_not_found}, and audited as answered, so that
	 * the audit never records a lease the caller was not shown.
	 */
	public LeaseResult inspect(InspectRequest request, Predicate<LeaseRecord> visible) {
		return this.runner.observed("inspect", request.scope().programId(), ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> (this.store instanceof AuditingLeaseStore audited) ? audited.inspect(request, visible)
						: AuditingLeaseStore.visibleOnly(this.store.inspect(request), visible));
	}

	/**
	 * A health probe: inspects an identity on the undecorated store (timed as {@code probe}, no audit event: a probe is
	 * not a lease request of any caller).
	 */
	public LeaseResult probe(LockIdentity identity) {
		return this.runner.observed("probe", identity.programId(), ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> this.unaudited.inspect(InspectRequest.byIdentity(identity, newId(), deadline())));
	}

	/** Lists active leases (canonical filter, stable order, opaque cursor). */
	public LeasePage list(ListRequest request) {
		return this.runner.page(request.filter().scope().programId(), () -> this.store.list(request));
	}

	/** Privileged force-release of the observed active lease. */
	public LeaseResult forceRelease(AdminRequest request) {
		return administrativeEnd(request, this.runner.observed("force_release", request.identity().programId(),
				MUTATION_THREW, () -> this.store.forceRelease(request)));
	}

	/** Privileged revoke of the observed active lease. */
	public LeaseResult revoke(AdminRequest request) {
		return administrativeEnd(request, this.runner.observed("revoke", request.identity().programId(),
				MUTATION_THREW, () -> this.store.revoke(request)));
	}

	/**
	 * Registers what to tell, in this JVM, when a force-release or revoke through this service ended a lease, or may
	 * have (outcome unknown): the lease's id. The job renewal scheduler renews that lease at once when this JVM holds
	 * it, so its job is cancelled now, not at its next renewal (the contract: revoke signals cancellation
	 * immediately). Listeners run on the administrator's thread and must not block; one that throws is logged.
	 */
	public void onAdministrativeEnd(Consumer<String> listener) {
		this.administrativeEnds.add(Objects.requireNonNull(listener, "listener"));
	}

	private LeaseResult administrativeEnd(AdminRequest request, LeaseResult result) {
		if (this.administrativeEnds.isEmpty()
				|| !(result.isSuccess() || result.code() == ResultCode.LEASE_OUTCOME_UNKNOWN)) {
			return result;
		}
		for (Consumer<String> listener : this.administrativeEnds) {
			try {
				listener.accept(request.expectedLeaseId());
			}
			catch (RuntimeException ex) {
				logger.warn("A listener of administrative lease ends failed ({})", ex.getClass().getSimpleName());
			}
		}
		return result;
	}

	/** Authorizes a fenced commit at backend time. */
	public LeaseResult authorizeCommit(CommitRequest request) {
		return this.runner.observed("authorize_commit", request.handle().identity().programId(),
				ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> this.store.authorizeCommit(request));
	}

	/** The committed result of an earlier mutating request, or {@code lease_not_found}. */
	public LeaseResult resolve(ResolveRequest request) {
		return this.runner.observed("resolve", request.identity().programId(), ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> this.store.resolve(request));
	}

	/**
	 * As {@link #resolve(ResolveRequest)} for a caller that may see only some leases: a result whose lease is not
	 * {@code visible} is answered, and audited, as {@code lease_not_found}.
	 */
	public LeaseResult resolve(ResolveRequest request, Predicate<LeaseRecord> visible) {
		return this.runner.observed("resolve", request.identity().programId(), ResultCode.LEASE_BACKEND_UNAVAILABLE,
				() -> (this.store instanceof AuditingLeaseStore audited) ? audited.resolve(request, visible)
						: AuditingLeaseStore.visibleOnly(this.store.resolve(request), visible));
	}

	/** put-with-lease (docs/attachments.md): a key attached to the exact lease of the request's handle. */
	public AttachmentResult putAttached(AttachPutRequest request) {
		return this.runner.attachment("attach_put", request.handle().identity().programId(),
				() -> this.store.putAttached(request));
	}

	/** Reads an attached key of a program (visible only while its lease is active). */
	public AttachmentResult getAttached(AttachGetRequest request) {
		return this.runner.attachment("attach_get", request.scope().programId(), () -> this.store.getAttached(request));
	}

	/** Deletes a key attached to the exact lease of the request's handle. */
	public AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return this.runner.attachment("attach_delete", request.handle().identity().programId(),
				() -> this.store.deleteAttached(request));
	}

	/** The names of the keys attached to an active lease of a program, read at one backend instant. */
	public AttachmentResult listAttached(AttachListRequest request) {
		return this.runner.attachment("attach_list", request.scope().programId(),
				() -> this.store.listAttached(request));
	}

	/**
	 * put-with-lease with a fresh request id and {@link #deadline()}; invalid input is answered
	 * {@code invalid_lease_request}, never thrown (so for the other three calls below).
	 */
	@Override
	public AttachmentResult putAttached(LeaseHandle handle, String name, String value) {
		return typed(() -> putAttached(new AttachPutRequest(handle, name, value, newId(), deadline())));
	}

	/** As {@link #putAttached(LeaseHandle, String, String)}, sent by {@code caller} (audit only). */
	@Override
	public AttachmentResult putAttached(LeaseHandle handle, String name, String value,
			@Nullable RequestCaller caller) {
		return typed(() -> putAttached(
				new AttachPutRequest(handle, name, value, newId(), deadline()).withCaller(caller)));
	}

	/** Reads an attached key of a program, with a fresh request id and {@link #deadline()}. */
	@Override
	public AttachmentResult getAttached(ProgramScope scope, String name) {
		return typed(() -> getAttached(new AttachGetRequest(scope, name, newId(), deadline())));
	}

	/** Deletes a key attached to the lease of {@code handle}, with a fresh request id and {@link #deadline()}. */
	@Override
	public AttachmentResult deleteAttached(LeaseHandle handle, String name) {
		return typed(() -> deleteAttached(new AttachDeleteRequest(handle, name, newId(), deadline())));
	}

	/** As {@link #getAttached(ProgramScope, String)}, read by the holder of {@code reader} (named in the audit). */
	@Override
	public AttachmentResult getAttached(ProgramScope scope, String name, LeaseRecord reader) {
		return asReader(reader, () -> getAttached(scope, name));
	}

	/** As {@link #listAttached(ProgramScope, String)}, read by the holder of {@code reader} (named in the audit). */
	@Override
	public AttachmentResult listAttached(ProgramScope scope, String leaseId, LeaseRecord reader) {
		return asReader(reader, () -> listAttached(scope, leaseId));
	}

	/** A read's audit event names the holder of {@code reader} as its caller (reads carry no handle). */
	private static AttachmentResult asReader(LeaseRecord reader, Supplier<AttachmentResult> read) {
		LeaseOwner owner = reader.owner();
		return new AuditContext(null, PrincipalClass.WORKER, owner.principalId(), owner.credentialId(),
				owner.serviceInstanceId()).run(read);
	}

	/** As {@link #deleteAttached(LeaseHandle, String)}, sent by {@code caller} (audit only). */
	@Override
	public AttachmentResult deleteAttached(LeaseHandle handle, String name, @Nullable RequestCaller caller) {
		return typed(() -> deleteAttached(
				new AttachDeleteRequest(handle, name, newId(), deadline()).withCaller(caller)));
	}

	/** The names of the keys attached to an active lease of a program, with {@link #deadline()}. */
	@Override
	public AttachmentResult listAttached(ProgramScope scope, String leaseId) {
		return typed(() -> listAttached(new AttachListRequest(scope, leaseId, newId(), deadline())));
	}

	/** A request the core records refuse to build (null or malformed input) answered as {@code invalid_lease_request}. */
	private static AttachmentResult typed(Supplier<AttachmentResult> call) {
		try {
			return call.get();
		}
		catch (InvalidLeaseRequestException ex) {
			return AttachmentResult.invalid(ex);
		}
	}

	/**
	 * The programs in which leases may be active or due, most recently active first (the expiry sweeper's discovery);
	 * a store that throws answers backend_unavailable.
	 */
	public ActivePrograms activePrograms(int limit) {
		try {
			return this.unaudited.activePrograms(limit, deadline());
		}
		catch (RuntimeException | Error ex) {
			FatalErrors.rethrowIfFatal(ex);
			logger.warn("Lease store threw on listing programs ({})", ex.getClass().getName());
			return ActivePrograms.failure(ActivePrograms.Status.BACKEND_UNAVAILABLE);
		}
	}

	/** The store's expiry sweep (the expiry sweeper's call); a store that throws answers backend_unavailable. */
	public SweepResult sweepExpired(SweepRequest request) {
		try {
			return this.store.sweepExpired(request);
		}
		catch (RuntimeException | Error ex) {
			FatalErrors.rethrowIfFatal(ex);
			logger.warn("Lease store threw on sweep ({})", ex.getClass().getName());
			return SweepResult.failure(SweepResult.Status.BACKEND_UNAVAILABLE, null);
		}
	}

}
