package io.starintel.lease.worker.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.internal.AuditContext;
import io.starintel.lease.audit.AuditEventType;
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
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.http.internal.TenantAdmission;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.worker.WorkerHttpProperties;

/**
 * The worker operations over the lease service: authenticate, parse, authorize, check the deadline, admit, then one
 * store call through the service (the same audited operations the jobs use).
 *
 * <p>Order of checks: 401 → 400 → 403 (capability; acquire: scope) → 408 (deadline already past, before submission)
 * → 429 → store (authentication itself is the controller's first step). Owner principal and credential id of every
 * lease are the authenticated caller's (ownership is the principal's: {@link #ownedBy}) and tenant and
 * program come from its credential, so a worker can only renew, release, inspect, resolve or commit its own leases;
 * anything else answers {@code lease_lost} (mutations and commits) or {@code lease_not_found} (reads), never a hint
 * of who holds what.
 */
final class WorkerOperations {

	private final LeaseService service;

	private final WorkerCredentials credentials;

	private final TenantAdmission admission;

	private final WorkerAudit audit;

	private final WorkerRequestParser parser;

	private final Clock clock;

	WorkerOperations(LeaseService service, WorkerCredentials credentials, TenantAdmission admission,
			WorkerAudit audit, LeasePolicy policy, OperationClasses operationClasses, Duration maximumWait,
			WorkerHttpProperties properties, Clock clock) {
		this.service = service;
		this.credentials = credentials;
		this.admission = admission;
		this.audit = audit;
		this.parser = new WorkerRequestParser(policy, operationClasses, maximumWait, properties);
		this.clock = clock;
	}

	/** Answers one request of an operation (authentication first, then {@link #handle(WorkerOperation, WorkerCaller, String, byte[], String, Instant)}). */
	WorkerResponse handle(WorkerOperation operation, @Nullable String authorization, @Nullable String instanceHeader,
			byte[] body, String correlationId) {
		Instant started = this.clock.instant();
		WorkerCaller caller = this.credentials.authenticate(authorization);
		if (caller == null) {
			return unauthenticated(operation.auditType(), correlationId, started);
		}
		return handle(operation, caller, instanceHeader, body, correlationId, started);
	}

	/** The caller of {@code authorization}, or {@code null} when the credential is missing, malformed or wrong. */
	@Nullable WorkerCaller authenticate(@Nullable String authorization) {
		return this.credentials.authenticate(authorization);
	}

	/** The 401 of a request without a valid credential, audited as anonymous (contract: authentication comes first). */
	WorkerResponse unauthenticated(AuditEventType type, String correlationId, Instant started) {
		this.audit.refused(type, ResultCode.INVALID_CREDENTIAL, correlationId, started, null, null, null, null);
		return WorkerEnvelope.error(ResultCode.INVALID_CREDENTIAL, correlationId, 0, null);
	}

	/** Answers one request of an authenticated caller, received at {@code started}. */
	WorkerResponse handle(WorkerOperation operation, WorkerCaller caller, @Nullable String instanceHeader, byte[] body,
			String correlationId, Instant started) {
		WorkerRequest parsed;
		try {
			parsed = this.parser.parse(operation, body, caller, instanceHeader, started);
		}
		catch (InvalidLeaseRequestException ex) {
			this.audit.refused(operation.auditType(), ResultCode.INVALID_LEASE_REQUEST, correlationId, started, caller,
					null, null, null);
			return WorkerEnvelope.error(ResultCode.INVALID_LEASE_REQUEST, correlationId, 0, ex.getMessage());
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
					caller.credentialId(), parsed.serviceInstanceId());
			LeaseResult result = context.run(() -> call(operation, caller, parsed, correlationId));
			return WorkerEnvelope.of(result, correlationId);
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
			@Nullable WorkerCaller caller, @Nullable WorkerRequest parsed, long retryAfterMs, @Nullable String detail) {
		this.audit.refused(operation.auditType(), code, correlationId, started, caller,
				(parsed != null) ? parsed.requestId() : null, (parsed != null) ? parsed.identity() : null,
				(parsed != null) ? parsed.serviceInstanceId() : null);
		return WorkerEnvelope.error(code, correlationId, retryAfterMs, detail);
	}

	/**
	 * One call of the lease service, which never throws: its one exception mapping answers a store
	 * failure on a mutation {@code lease_outcome_unknown} (resolve by request_id) and on a read
	 * {@code lease_backend_unavailable}.
	 */
	private LeaseResult call(WorkerOperation operation, WorkerCaller caller, WorkerRequest parsed, String correlationId) {
		switch (operation) {
			case ACQUIRE:
				return acquire((WorkerRequest.Acquire) parsed.input());
			case RENEW:
				return renew(caller, parsed);
			case RELEASE:
				return this.service.release(new ReleaseRequest((LeaseHandle) parsed.input(), parsed.requestId(),
						parsed.deadline(), parsed.acting()));
			case INSPECT:
				return inspect(caller, parsed, correlationId);
			case RESOLVE:
				return resolve(caller, parsed);
			default:
				return this.service.authorizeCommit(new CommitRequest((LeaseHandle) parsed.input(), correlationId,
						parsed.deadline(), parsed.acting()));
		}
	}

	/**
	 * acquire-if-free, non-blocking unless {@code wait_ms} asks for a bounded wait (already capped at the server's
	 * maximum wait): then the service's {@link LeaseService#acquire(AcquireRequest, Duration) bounded-wait acquire} retries conflicts with the
	 * same request id until the earlier of the wait and the request deadline, as one audited request. Contract: no
	 * indefinite blocking acquisition.
	 */
	private LeaseResult acquire(WorkerRequest.Acquire input) {
		if (input.waitMs() == 0) {
			return this.service.acquire(input.request());
		}
		return this.service.acquire(input.request(), Duration.ofMillis(input.waitMs()));
	}

	/**
	 * renew-if-owner. Contract: a renewal response received after the deadline does not grant authority: the service
	 * answers a late success {@code lease_outcome_unknown} (the worker inspects or retries with the same request id).
	 */
	private LeaseResult renew(WorkerCaller caller, WorkerRequest parsed) {
		WorkerRequest.Renew input = (WorkerRequest.Renew) parsed.input();
		return this.service.renew(new RenewRequest(input.handle(), parsed.requestId(), parsed.deadline(),
				input.ttlMs(), parsed.acting()));
	}

	/** Inspect own lease: the identity's active lease, only when it is the given lease id and the caller principal's. */
	private LeaseResult inspect(WorkerCaller caller, WorkerRequest parsed, String correlationId) {
		String leaseId = (String) parsed.input();
		// decided inside the audited call, so that a refused inspect is audited as lease_not_found, without the lease
		return this.service.inspect(InspectRequest.byIdentity(parsed.identity(), correlationId, parsed.deadline()),
				(lease) -> ownedBy(lease, caller) && leaseId.equals(lease.leaseId()));
	}

	/**
	 * Resolve by request id: the caller's own earlier acquire, renew or release (idempotency records are per owner
	 * principal, so any credential of the principal finds it). Audited by the audited store as
	 * {@code target_lease_resolve}.
	 */
	private LeaseResult resolve(WorkerCaller caller, WorkerRequest parsed) {
		return this.service.resolve(new ResolveRequest((Operation) parsed.input(), parsed.identity(),
				caller.principalId(), parsed.requestId(), parsed.deadline()), (lease) -> ownedBy(lease, caller));
	}

	/**
	 * Contract: the owner is the authenticated principal (renew, release and authorize-commit compare
	 * owner_principal_id, service instance and token, never the credential), so every credential of the principal
	 * owns its leases here too: a worker that rotates its key keeps its lease, and inspect and resolve agree with the
	 * mutations.
	 */
	private static boolean ownedBy(@Nullable LeaseRecord lease, WorkerCaller caller) {
		return lease != null && lease.owner().principalId().equals(caller.principalId());
	}

}
