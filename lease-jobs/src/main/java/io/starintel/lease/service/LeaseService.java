package io.starintel.lease.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.context.AttachedKeyOperations;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
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

	/**
	 * Contract: "If a network timeout occurs after submission, the result is outcome-unknown until resolved by
	 * request_id". A store that throws on a mutation may have committed it, so that is the answer, never
	 * {@code lease_backend_unavailable}.
	 */
	static final ResultCode MUTATION_THREW = ResultCode.LEASE_OUTCOME_UNKNOWN;

	private final LeaseStore store;

	private final LeaseStore unaudited;

	private final LeaseStore operations;

	private final Clock clock;

	private final Duration operationTimeout;

	private final OperationRunner runner;

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
		this.runner = new OperationRunner((meters != null) ? meters : new CompositeMeterRegistry(),
				(observations != null) ? observations : ObservationRegistry.NOOP);
		this.operations = new ObservedLeaseStore(store, this.runner);
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
		return this.runner.measured("probe", () -> this.unaudited
			.inspect(InspectRequest.byIdentity(identity, Identifiers.generate("correlation"), deadline())));
	}

	/** The meter registry (a no-op composite when none was given). */
	public MeterRegistry meters() {
		return this.runner.meters();
	}

	/**
	 * acquire-if-free with a fresh request id; an outcome-unknown reply is resolved once by that request id
	 * (contract: resolve by request_id before more work).
	 */
	public LeaseResult acquire(LockIdentity identity, LeaseOwner owner, Duration ttl, Duration maximumLifetime,
			String executionId, String jobId, String traceId, LeaseMetadata metadata) {
		return this.runner.observed("acquire", MUTATION_THREW, () -> {
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
		return this.runner.observed("renew", MUTATION_THREW, () -> {
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
		return RenewalBatch.renew(this.store, requests, this.clock, this.runner);
	}

	/** release-if-owner with a fresh request id (contract: compare-and-delete, never a successor). */
	public LeaseResult release(LeaseHandle handle) {
		return this.runner.observed("release", MUTATION_THREW,
				() -> this.store.release(new ReleaseRequest(handle, Identifiers.generate("request"), deadline())));
	}

	/** Inspect the active lease of an identity (used by the health indicator and loss diagnosis). */
	public LeaseResult inspect(LockIdentity identity) {
		return this.runner.measured("inspect", () -> this.store
			.inspect(InspectRequest.byIdentity(identity, Identifiers.generate("correlation"), deadline())));
	}

	/**
	 * put-with-lease (docs/attachments.md) with a fresh request id: stores {@code value} under {@code name}, attached
	 * to the exact lease of {@code handle}; deleted with the lease by every ending transition.
	 */
	@Override
	public AttachmentResult putAttached(LeaseHandle handle, String name, String value) {
		return this.runner.attachment("attach_put", () -> this.store
			.putAttached(new AttachPutRequest(handle, name, value, Identifiers.generate("request"), deadline())));
	}

	/** Reads an attached key of a program (visible only while its lease is active). */
	@Override
	public AttachmentResult getAttached(ProgramScope scope, String name) {
		return this.runner.attachment("attach_get", () -> this.store
			.getAttached(new AttachGetRequest(scope, name, Identifiers.generate("correlation"), deadline())));
	}

	/** Deletes a key attached to the exact lease of {@code handle}, with a fresh request id. */
	@Override
	public AttachmentResult deleteAttached(LeaseHandle handle, String name) {
		return this.runner.attachment("attach_delete", () -> this.store
			.deleteAttached(new AttachDeleteRequest(handle, name, Identifiers.generate("request"), deadline())));
	}

	/** The names of the keys attached to an active lease of a program, read at one backend instant. */
	@Override
	public AttachmentResult listAttached(ProgramScope scope, String leaseId) {
		return this.runner.attachment("attach_list", () -> this.store
			.listAttached(new AttachListRequest(scope, leaseId, Identifiers.generate("correlation"), deadline())));
	}

	private Instant deadline() {
		return this.clock.instant().plus(this.operationTimeout);
	}

}
