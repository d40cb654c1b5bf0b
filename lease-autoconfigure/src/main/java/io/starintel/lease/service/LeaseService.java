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

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.Identifiers;
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
import io.starintel.lease.store.LeaseStore;

/**
 * The thin service the job aspect calls: builds requests with fresh request ids and finite deadlines, resolves
 * {@code lease_outcome_unknown} acquisitions by request id, and records metrics and an observation per operation.
 *
 * <p>Contract: every mutating request carries a globally unique {@code request_id} and a finite
 * {@code deadline_at}; a timeout after submission is outcome-unknown until resolved by request id. This service
 * never throws a backend exception: a store that throws anyway is answered with
 * {@code lease_backend_unavailable}, and invalid input with {@code invalid_lease_request}. Meter and
 * observation tags are only {@code operation} and {@code code} (never a lock key, target id or secret).
 */
public final class LeaseService {

	/** Timer of every store operation, tagged {@code operation} and {@code code}. */
	public static final String OPERATION_TIMER = "starintel.lease.operation";

	/** Observation name of acquire, renew and release. */
	public static final String OBSERVATION = "starintel.lease.operation";

	private static final Logger logger = LoggerFactory.getLogger(LeaseService.class);

	private final LeaseStore store;

	private final Clock clock;

	private final Duration operationTimeout;

	private final MeterRegistry meters;

	private final ObservationRegistry observations;

	private final java.util.Map<String, Timer> timers = new java.util.concurrent.ConcurrentHashMap<>();

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
		this.store = Objects.requireNonNull(store, "store");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.operationTimeout = Objects.requireNonNull(operationTimeout, "operationTimeout");
		this.meters = (meters != null) ? meters : new CompositeMeterRegistry();
		this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
	}

	/** The store this service calls. */
	public LeaseStore store() {
		return this.store;
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
		return observe("acquire", () -> {
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
		return observe("renew", () -> {
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
			logger.warn("Lease store threw on renew_batch ({}); answering lease_backend_unavailable",
					ex.getClass().getName());
			results = null;
		}
		Instant now = this.clock.instant();
		List<LeaseResult> out = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			LeaseResult result = (results != null && results.size() == requests.size()) ? results.get(i) : null;
			if (result == null) {
				result = LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
			}
			else if (result.isSuccess() && now.isAfter(requests.get(i).deadlineAt())) {
				result = LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, result.decidedAt());
			}
			out.add(result);
		}
		long perLease = (System.nanoTime() - start) / Math.max(1, requests.size());
		for (LeaseResult result : out) {
			this.timers.computeIfAbsent("renew/" + result.code().wireName(), (key) -> Timer.builder(OPERATION_TIMER)
				.description("Lease store operations by operation and result code")
				.tag("operation", "renew")
				.tag("code", result.code().wireName())
				.register(this.meters)).record(perLease, java.util.concurrent.TimeUnit.NANOSECONDS);
		}
		return out;
	}

	/** release-if-owner with a fresh request id (contract: compare-and-delete, never a successor). */
	public LeaseResult release(LeaseHandle handle) {
		return observe("release",
				() -> this.store.release(new ReleaseRequest(handle, Identifiers.generate("request"), deadline())));
	}

	/** Inspect the active lease of an identity (used by the health indicator and loss diagnosis). */
	public LeaseResult inspect(LockIdentity identity) {
		return timed("inspect", () -> this.store
			.inspect(InspectRequest.byIdentity(identity, Identifiers.generate("correlation"), deadline())));
	}

	private Instant deadline() {
		return this.clock.instant().plus(this.operationTimeout);
	}

	private LeaseResult observe(String operation, Supplier<LeaseResult> call) {
		Observation observation = Observation.createNotStarted(OBSERVATION, this.observations)
			.lowCardinalityKeyValue("operation", operation)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			LeaseResult result = timed(operation, call);
			observation.lowCardinalityKeyValue("code", result.code().wireName());
			return result;
		}
		finally {
			observation.stop();
		}
	}

	private LeaseResult timed(String operation, Supplier<LeaseResult> call) {
		long start = System.nanoTime();
		LeaseResult result = safely(operation, call);
		long elapsed = System.nanoTime() - start;
		this.timers.computeIfAbsent(operation + '/' + result.code().wireName(), (key) -> Timer.builder(OPERATION_TIMER)
			.description("Lease store operations by operation and result code")
			.tag("operation", operation)
			.tag("code", result.code().wireName())
			.register(this.meters)).record(elapsed, java.util.concurrent.TimeUnit.NANOSECONDS);
		return result;
	}

	private LeaseResult safely(String operation, Supplier<LeaseResult> call) {
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
			logger.warn("Lease store threw on {} ({}); answering lease_backend_unavailable", operation,
					ex.getClass().getName());
			return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
		}
	}

}
