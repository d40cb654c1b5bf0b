package io.starintel.lease.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.audit.internal.AuditContext;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.http.Deadlines;
import io.starintel.lease.http.StrictJson;
import io.starintel.lease.http.TenantAdmission;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;

/**
 * The worker operations over the lease service: authenticate, parse, authorize, check the deadline, admit, then one
 * store call through the service (the same audited operations the jobs use).
 *
 * <p>Order of checks: 401 → 400 → 403 (capability; acquire: scope) → 408 (deadline already past, before submission)
 * → 429 → store. Owner principal and credential id of every lease are the authenticated caller's and tenant and
 * program come from its credential, so a worker can only renew, release, inspect, resolve or commit its own leases;
 * anything else answers {@code lease_lost} (mutations and commits) or {@code lease_not_found} (reads), never a hint
 * of who holds what.
 */
final class WorkerOperations {

	/** Header naming the caller's service instance (or the body's {@code service_instance_id}). */
	static final String INSTANCE_HEADER = "X-Service-Instance-Id";

	/** Deadlines earlier than this before now are malformed (400), not merely past (408). */
	static final Duration PLAUSIBLE_PAST = Duration.ofDays(1);

	private final LeaseService service;

	private final WorkerCredentials credentials;

	private final TenantAdmission admission;

	private final WorkerAudit audit;

	private final LeasePolicy policy;

	private final OperationClasses operationClasses;

	private final Duration maximumWait;

	private final WorkerHttpProperties properties;

	private final Clock clock;

	WorkerOperations(LeaseService service, WorkerCredentials credentials, TenantAdmission admission,
			WorkerAudit audit, LeasePolicy policy, OperationClasses operationClasses, Duration maximumWait,
			WorkerHttpProperties properties, Clock clock) {
		this.service = service;
		this.credentials = credentials;
		this.admission = admission;
		this.audit = audit;
		this.policy = policy;
		this.operationClasses = operationClasses;
		this.maximumWait = maximumWait;
		this.properties = properties;
		this.clock = clock;
	}

	/** A parsed request: the identity, the deadline and the operation's own input. */
	private record Parsed(LockIdentity identity, Instant deadline, @Nullable String requestId,
			String serviceInstanceId, ObjectNode body, Object input) {
	}

	/** Input of acquire: the request and the bounded wait. */
	private record Acquire(AcquireRequest request, long waitMs) {
	}

	/** Input of renew: the handle and the optional new TTL. */
	private record Renew(LeaseHandle handle, @Nullable Long ttlMs) {
	}

	/** Answers one request of an operation. */
	WorkerResponse handle(WorkerOperation operation, @Nullable String authorization, @Nullable String instanceHeader,
			byte[] body, String correlationId) {
		Instant started = this.clock.instant();
		WorkerCaller caller = this.credentials.authenticate(authorization);
		if (caller == null) {
			return refuse(operation, ResultCode.INVALID_CREDENTIAL, correlationId, started, null, null, 0, null);
		}
		Parsed parsed;
		try {
			parsed = parse(operation, body, caller, instanceHeader, started);
		}
		catch (InvalidLeaseRequestException ex) {
			this.audit.refused(operation.auditType(), ResultCode.INVALID_LEASE_REQUEST, correlationId, started, caller,
					null, null, null);
			return WorkerEnvelopes.error(ResultCode.INVALID_LEASE_REQUEST, correlationId, 0, ex.getMessage());
		}
		if (!caller.mayLease() && (operation.needsLeaseCapability() || !caller.capabilities().contains("targets:read"))) {
			return refuse(operation, ResultCode.ACCESS_DENIED, correlationId, started, caller, parsed, 0, null);
		}
		if (!caller.covers(parsed.identity())) {
			return refuse(operation, outOfScope(operation), correlationId, started, caller, parsed, 0, null);
		}
		if (!parsed.deadline().isAfter(started)) {
			return refuse(operation, ResultCode.DEADLINE_EXCEEDED, correlationId, started, caller, parsed, 0, null);
		}
		try (TenantAdmission.Permit permit = this.admission.admit(caller.scope().tenantId())) {
			if (!permit.admitted()) {
				return refuse(operation, ResultCode.LEASE_RATE_LIMITED, correlationId, started, caller, parsed,
						permit.retryAfterMs(), null);
			}
			AuditContext context = new AuditContext(correlationId, PrincipalClass.WORKER, caller.principalId(),
					caller.credentialId());
			LeaseResult result = context.run(() -> call(operation, caller, parsed, correlationId));
			return WorkerEnvelopes.of(result, correlationId);
		}
	}

	/** Contract: mutation paths prefer lease_lost and reads not-found, so a stale client cannot enumerate ownership. */
	private static ResultCode outOfScope(WorkerOperation operation) {
		switch (operation) {
			case ACQUIRE:
				return ResultCode.ACCESS_DENIED;
			case INSPECT:
			case RESOLVE:
				return ResultCode.LEASE_NOT_FOUND;
			default:
				return ResultCode.LEASE_LOST;
		}
	}

	private WorkerResponse refuse(WorkerOperation operation, ResultCode code, String correlationId, Instant started,
			@Nullable WorkerCaller caller, @Nullable Parsed parsed, long retryAfterMs, @Nullable String detail) {
		this.audit.refused(operation.auditType(), code, correlationId, started, caller,
				(parsed != null) ? parsed.requestId() : null, (parsed != null) ? parsed.identity() : null,
				(parsed != null) ? parsed.serviceInstanceId() : null);
		return WorkerEnvelopes.error(code, correlationId, retryAfterMs, detail);
	}

	private Parsed parse(WorkerOperation operation, byte[] bytes, WorkerCaller caller, @Nullable String instanceHeader,
			Instant now) {
		ObjectNode body = StrictJson.object(bytes, operation.fields());
		String instance = serviceInstance(body, instanceHeader);
		LockIdentity identity = WorkerJson.identity(body, caller.scope(), this.operationClasses);
		String requestId = operation.fields().contains("request_id") ? WorkerJson.id(body, "request_id") : null;
		Instant deadline = deadline(body, now);
		Object input;
		switch (operation) {
			case ACQUIRE:
				input = acquireInput(body, caller, identity, requestId, deadline, instance, now);
				break;
			case INSPECT:
				input = WorkerJson.id(body, "lease_id");
				break;
			case RESOLVE:
				input = resolvedOperation(body);
				break;
			case RENEW:
				input = new Renew(handle(body, caller, identity, instance), renewTtl(body));
				break;
			default:
				input = handle(body, caller, identity, instance);
		}
		return new Parsed(identity, deadline, requestId, instance, body, input);
	}

	private Acquire acquireInput(ObjectNode body, WorkerCaller caller, LockIdentity identity, String requestId,
			Instant deadline, String instance, Instant now) {
		Long ttl = StrictJson.integer(body, "ttl_ms", true);
		Long lifetime = StrictJson.integer(body, "maximum_lifetime_ms", false);
		Long waitMs = StrictJson.integer(body, "wait_ms", false);
		if (waitMs != null && (waitMs < 0 || waitMs > this.maximumWait.toMillis())) {
			throw new InvalidLeaseRequestException("wait_ms", "must be 0.." + this.maximumWait.toMillis());
		}
		AcquireRequest request = new AcquireRequest(identity, requestId, deadline, caller.owner(instance), ttl,
				(lifetime != null) ? lifetime : this.properties.defaultMaximumLifetime().toMillis(),
				WorkerJson.id(body, "execution_id"), WorkerJson.id(body, "job_id"), WorkerJson.id(body, "trace_id"),
				WorkerJson.metadata(body));
		// contract: minimum_ttl_ms < ttl_ms <= maximum_ttl_ms and a positive maximum lifetime within policy
		this.policy.check(request, now);
		return new Acquire(request, (waitMs != null) ? waitMs : 0);
	}

	private static LeaseHandle handle(ObjectNode body, WorkerCaller caller, LockIdentity identity, String instance) {
		return new LeaseHandle(identity, WorkerJson.id(body, "lease_id"), caller.principalId(), instance,
				StrictJson.integer(body, "fencing_token", true));
	}

	/** The optional new TTL of a renewal, within policy (contract: ttl_ms is the effective TTL server policy chose). */
	private @Nullable Long renewTtl(ObjectNode body) {
		Long ttl = StrictJson.integer(body, "ttl_ms", false);
		if (ttl != null) {
			this.policy.checkRenewTtl(ttl);
		}
		return ttl;
	}

	private static Operation resolvedOperation(ObjectNode body) {
		String name = StrictJson.string(body, "operation", true);
		for (Operation operation : new Operation[] { Operation.ACQUIRE, Operation.RENEW, Operation.RELEASE }) {
			if (operation.wireName().equals(name)) {
				return operation;
			}
		}
		throw new InvalidLeaseRequestException("operation", "must be acquire, renew or release");
	}

	/** Contract: the service instance id is required and validated; header and field must agree when both are given. */
	private static String serviceInstance(ObjectNode body, @Nullable String header) {
		String field = StrictJson.string(body, "service_instance_id", false);
		if (header != null && field != null && !header.equals(field)) {
			throw new InvalidLeaseRequestException("service_instance_id", "header and body differ");
		}
		String value = (field != null) ? field : header;
		if (value == null) {
			throw new InvalidLeaseRequestException("service_instance_id", "missing (field or " + INSTANCE_HEADER
					+ " header)");
		}
		return Identifiers.require("service_instance_id", value);
	}

	/**
	 * Contract: every call has a finite deadline_at. Absent: now + the default deadline. Later than the policy's
	 * maximum deadline, or implausibly far in the past (any extreme date), is malformed; a recent past deadline is
	 * {@code deadline_exceeded} (checked by the caller before submission).
	 */
	private Instant deadline(ObjectNode body, Instant now) {
		return Deadlines.parse(StrictJson.string(body, "deadline_at", false), now, this.properties.defaultDeadline(),
				this.policy, PLAUSIBLE_PAST);
	}

	/**
	 * One call of the service's operations view, which never throws: its one exception mapping answers a store
	 * failure on a mutation {@code lease_outcome_unknown} (resolve by request_id) and on a read
	 * {@code lease_backend_unavailable}.
	 */
	private LeaseResult call(WorkerOperation operation, WorkerCaller caller, Parsed parsed, String correlationId) {
		switch (operation) {
			case ACQUIRE:
				return acquire((Acquire) parsed.input());
			case RENEW:
				return renew(parsed);
			case RELEASE:
				return store().release(new ReleaseRequest((LeaseHandle) parsed.input(), parsed.requestId(),
						parsed.deadline()));
			case INSPECT:
				return inspect(caller, parsed, correlationId);
			case RESOLVE:
				return resolve(caller, parsed);
			default:
				return store().authorizeCommit(new CommitRequest((LeaseHandle) parsed.input(), correlationId,
						parsed.deadline()));
		}
	}

	/**
	 * The lease service's operations view: the one audited store, timed, observed and exception-mapped exactly as for
	 * the jobs, the fence guard and the admin endpoint.
	 */
	private LeaseStore store() {
		return this.service.operations();
	}

	/**
	 * acquire-if-free, non-blocking unless {@code wait_ms} asks for a bounded wait (already capped at the server's
	 * maximum wait): then the store's {@link LeaseStore#acquireWaiting bounded-wait acquire} retries conflicts with the
	 * same request id until the earlier of the wait and the request deadline, as one audited request. Contract: no
	 * indefinite blocking acquisition.
	 */
	private LeaseResult acquire(Acquire input) {
		if (input.waitMs() == 0) {
			return store().acquire(input.request());
		}
		return store().acquireWaiting(input.request(), Duration.ofMillis(input.waitMs()));
	}

	/**
	 * renew-if-owner. Contract: a renewal response received after the deadline does not grant authority, so a late
	 * success is answered {@code lease_outcome_unknown} (the worker inspects or retries with the same request id).
	 */
	private LeaseResult renew(Parsed parsed) {
		Renew input = (Renew) parsed.input();
		LeaseResult result = store().renew(new RenewRequest(input.handle(), parsed.requestId(), parsed.deadline(),
				input.ttlMs()));
		if (result.isSuccess() && this.clock.instant().isAfter(parsed.deadline())) {
			return LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, result.decidedAt());
		}
		return result;
	}

	/** Inspect own lease: the identity's active lease, only when it is the given lease id and the caller's. */
	private LeaseResult inspect(WorkerCaller caller, Parsed parsed, String correlationId) {
		String leaseId = (String) parsed.input();
		LeaseResult result = store()
			.inspect(InspectRequest.byIdentity(parsed.identity(), correlationId, parsed.deadline()));
		if (result.isSuccess() && !(ownedBy(result.lease(), caller) && leaseId.equals(result.lease().leaseId()))) {
			return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, result.decidedAt());
		}
		return result;
	}

	/**
	 * Resolve by request id: the caller's own earlier acquire, renew or release (idempotency records are per owner
	 * principal; a record of another credential of the same principal is not found). Audited by the audited store as
	 * {@code target_lease_resolve}.
	 */
	private LeaseResult resolve(WorkerCaller caller, Parsed parsed) {
		LeaseResult result = store().resolve(new ResolveRequest((Operation) parsed.input(), parsed.identity(),
				caller.principalId(), parsed.requestId(), parsed.deadline()));
		if (result.isSuccess() && !ownedBy(result.lease(), caller)) {
			return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, result.decidedAt());
		}
		return result;
	}

	private static boolean ownedBy(@Nullable LeaseRecord lease, WorkerCaller caller) {
		return lease != null && lease.owner().principalId().equals(caller.principalId())
				&& lease.owner().credentialId().equals(caller.credentialId());
	}

}
