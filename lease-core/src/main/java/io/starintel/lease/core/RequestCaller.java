package io.starintel.lease.core;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.Identifiers;

/**
 * Who sends a holder's request (renew, release, authorize-commit), for that request's audit event: the acting
 * credential's non-secret id and the trace, execution and job ids of the work it acts for.
 *
 * <p>Contract: each audit event records the principal's non-secret credential id and the trace, execution and job
 * identifiers. The store compares the {@link LeaseHandle}'s owner tuple, never these: any credential of the owner
 * principal may renew, release or commit, and the event says which one did. Never part of a request's idempotency
 * digest; never credential material.
 *
 * @param credentialId the acting credential's non-secret id
 * @param traceId the caller's trace id, or {@code null} (the event then takes the lease's when it has the record)
 * @param executionId the caller's execution id, or {@code null}
 * @param jobId the caller's job id, or {@code null}
 */
public record RequestCaller(String credentialId, @Nullable String traceId, @Nullable String executionId,
		@Nullable String jobId) {

	/** Validates the identifiers given. */
	public RequestCaller {
		Identifiers.require("credential_id", credentialId);
		if (traceId != null) {
			Identifiers.require("trace_id", traceId);
		}
		if (executionId != null) {
			Identifiers.require("execution_id", executionId);
		}
		if (jobId != null) {
			Identifiers.require("job_id", jobId);
		}
	}

	/** A caller known by its credential id only (e.g. a worker API request, which names no trace ids). */
	public static RequestCaller credential(String credentialId) {
		return new RequestCaller(credentialId, null, null, null);
	}

	/**
	 * The holder of {@code lease} acting on it itself (a leased job): the owner's credential id and the lease's
	 * trace, execution and job ids.
	 */
	public static RequestCaller holderOf(LeaseRecord lease) {
		return new RequestCaller(lease.owner().credentialId(), lease.traceId(), lease.executionId(), lease.jobId());
	}

}
