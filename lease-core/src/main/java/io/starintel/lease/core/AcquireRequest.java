package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.RequestDigest;

/**
 * Input of acquire-if-free.
 *
 * <p>Contract: required input includes owner principal, credential identifier, service instance, requested TTL,
 * maximum lifetime, execution/job/trace identifiers, operation class (in the identity) and bounded metadata.
 */
public record AcquireRequest(LockIdentity identity, String requestId, Instant deadlineAt, LeaseOwner owner,
		long ttlMs, long maximumLifetimeMs, String executionId, String jobId, String traceId,
		LeaseMetadata metadata) implements MutatingRequest {

	/** Validates identifiers and presence; TTL and lifetime bounds are policy, checked by the store. */
	public AcquireRequest {
		RequestFields.requireIdentity(identity);
		Identifiers.require("request_id", requestId);
		RequestFields.requireDeadline(deadlineAt);
		if (owner == null) {
			throw new InvalidLeaseRequestException("owner", "missing");
		}
		Identifiers.require("execution_id", executionId);
		Identifiers.require("job_id", jobId);
		Identifiers.require("trace_id", traceId);
		metadata = (metadata != null) ? metadata : LeaseMetadata.empty();
	}

	@Override
	public Operation operation() {
		return Operation.ACQUIRE;
	}

	@Override
	public String principalId() {
		return this.owner.principalId();
	}

	@Override
	public String digest() {
		return RequestDigest.of(Operation.ACQUIRE, this.identity.lockKey(), this.owner.principalId(),
				this.owner.clientId(), this.owner.credentialId(), this.owner.serviceInstanceId(), this.ttlMs,
				this.maximumLifetimeMs, this.executionId, this.jobId, this.traceId, this.metadata.json());
	}

}
