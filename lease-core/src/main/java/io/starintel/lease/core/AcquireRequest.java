package io.starintel.lease.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.RequestDigest;

/**
 * Input of acquire-if-free.
 *
 * <p>Contract: required input includes owner principal, credential identifier, service instance, requested TTL,
 * maximum lifetime, execution/job/trace identifiers, operation class (in the identity) and bounded metadata.
 * {@link #builder(LockIdentity, LeaseOwner)} names the fields and leaves the request id and deadline to the one who
 * sends the request (the lease service's {@code newId()} and {@code deadline()}).
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
		return RequestDigest.start(Operation.ACQUIRE)
			.field(LockIdentity.KEY_PREFIX, this.identity.keyDigest())
			.field(this.owner.principalId())
			.field(this.owner.clientId())
			.field(this.owner.credentialId())
			.field(this.owner.serviceInstanceId())
			.field(this.ttlMs)
			.field(this.maximumLifetimeMs)
			.field(this.executionId)
			.field(this.jobId)
			.field(this.traceId)
			.field(this.metadata.json())
			.digest();
	}

	/**
	 * A builder of an acquire request for {@code identity} and {@code owner}: execution, job and trace ids default to
	 * fresh ids, metadata to none; TTL and maximum lifetime are checked against the policy by the store.
	 */
	public static Builder builder(LockIdentity identity, LeaseOwner owner) {
		return new Builder(identity, owner);
	}

	/** Names the fields of an {@link AcquireRequest}; {@link #build} adds the request id and deadline. */
	public static final class Builder {

		private final LockIdentity identity;

		private final LeaseOwner owner;

		private long ttlMs;

		private long maximumLifetimeMs;

		private @Nullable String executionId;

		private @Nullable String jobId;

		private @Nullable String traceId;

		private LeaseMetadata metadata = LeaseMetadata.empty();

		private Builder(LockIdentity identity, LeaseOwner owner) {
			this.identity = identity;
			this.owner = owner;
		}

		/** Requested TTL. */
		public Builder ttl(Duration ttl) {
			this.ttlMs = RequestFields.millis("ttl_ms", ttl);
			return this;
		}

		/** Maximum lifetime: no renewal extends the lease past acquisition plus this. */
		public Builder maximumLifetime(Duration maximumLifetime) {
			this.maximumLifetimeMs = RequestFields.millis("maximum_lifetime_ms", maximumLifetime);
			return this;
		}

		/** Execution, job and trace ids of the work the lease covers (each a fresh id when not given). */
		public Builder execution(String executionId, String jobId, String traceId) {
			this.executionId = executionId;
			this.jobId = jobId;
			this.traceId = traceId;
			return this;
		}

		/** Bounded metadata recorded with the lease. */
		public Builder metadata(LeaseMetadata metadata) {
			this.metadata = metadata;
			return this;
		}

		/**
		 * The request, with its request id and deadline.
		 * @throws InvalidLeaseRequestException when an identifier is invalid
		 */
		public AcquireRequest build(String requestId, Instant deadlineAt) {
			return new AcquireRequest(this.identity, requestId, deadlineAt, this.owner, this.ttlMs,
					this.maximumLifetimeMs, orFresh(this.executionId, "execution"), orFresh(this.jobId, "job"),
					orFresh(this.traceId, "trace"), this.metadata);
		}

		private static String orFresh(@Nullable String id, String prefix) {
			return (id != null) ? id : Identifiers.generate(prefix);
		}

	}

}
