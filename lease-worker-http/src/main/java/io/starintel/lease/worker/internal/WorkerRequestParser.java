package io.starintel.lease.worker.internal;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.http.internal.RequestDeadline;
import io.starintel.lease.http.internal.StrictJson;
import io.starintel.lease.worker.WorkerHttpProperties;

/**
 * Parses the body of a worker request into a {@link WorkerRequest}: strict JSON with only the operation's fields, the
 * service instance (field or header), the lock identity completed with the caller's tenant and program, the request
 * id, the deadline and the operation's own input (acquire and renew TTLs are checked against the lease policy). Every
 * failure is an {@link InvalidLeaseRequestException} naming the field and rule, never the value.
 */
final class WorkerRequestParser {

	/** Header naming the caller's service instance (or the body's {@code service_instance_id}). */
	static final String INSTANCE_HEADER = "X-Service-Instance-Id";

	/** Deadlines earlier than this before now are malformed (400), not merely past (408). */
	static final Duration PLAUSIBLE_PAST = Duration.ofDays(1);

	private final LeasePolicy policy;

	private final OperationClasses operationClasses;

	private final Duration maximumWait;

	private final WorkerHttpProperties properties;

	WorkerRequestParser(LeasePolicy policy, OperationClasses operationClasses, Duration maximumWait,
			WorkerHttpProperties properties) {
		this.policy = policy;
		this.operationClasses = operationClasses;
		this.maximumWait = maximumWait;
		this.properties = properties;
	}

	/** Parses the body of one request of an operation, received at {@code now}. */
	WorkerRequest parse(WorkerOperation operation, byte[] bytes, WorkerCaller caller, @Nullable String instanceHeader,
			Instant now) {
		ObjectNode body = StrictJson.object(bytes, operation.fields());
		String instance = serviceInstance(body, instanceHeader);
		LockIdentity identity = WorkerJson.identity(body, caller.scope(), this.operationClasses);
		String requestId = operation.fields().contains("request_id") ? WorkerJson.id(body, "request_id") : null;
		Instant deadline = deadline(body, now);
		Object input;
		RequestCaller acting = null;
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
				input = new WorkerRequest.Renew(handle(body, caller, identity, instance), renewTtl(body));
				acting = acting(body, caller);
				break;
			default:
				input = handle(body, caller, identity, instance);
				acting = acting(body, caller);
		}
		return new WorkerRequest(identity, deadline, requestId, instance, body, input, acting);
	}

	private WorkerRequest.Acquire acquireInput(ObjectNode body, WorkerCaller caller, LockIdentity identity,
			String requestId, Instant deadline, String instance, Instant now) {
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
		return new WorkerRequest.Acquire(request, (waitMs != null) ? waitMs : 0);
	}

	private static LeaseHandle handle(ObjectNode body, WorkerCaller caller, LockIdentity identity, String instance) {
		return new LeaseHandle(identity, WorkerJson.id(body, "lease_id"), caller.principalId(), instance,
				StrictJson.integer(body, "fencing_token", true));
	}

	/**
	 * Who sends a renew, release or commit, for its audit event only: the authenticated credential's id (any
	 * credential of the owner principal may act on its leases, and the event says which one did) and the optional
	 * trace, execution and job ids of the body (where it names none, the event takes the lease's when the store
	 * answers with it).
	 */
	private static RequestCaller acting(ObjectNode body, WorkerCaller caller) {
		return new RequestCaller(caller.credentialId(), optionalId(body, "trace_id"), optionalId(body, "execution_id"),
				optionalId(body, "job_id"));
	}

	private static @Nullable String optionalId(ObjectNode body, String field) {
		String value = StrictJson.string(body, field, false);
		return (value != null) ? Identifiers.require(field, value) : null;
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
		return RequestDeadline.parse(StrictJson.string(body, "deadline_at", false), now,
				this.properties.defaultDeadline(), this.policy, PLAUSIBLE_PAST);
	}

}
