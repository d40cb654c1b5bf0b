package io.starintel.lease.audit.internal;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RequestCaller;

/** How the requests and results of the store's operations, and the calling HTTP layer, fill an event's fields. */
final class AuditFields {

	private AuditFields() {
	}

	/** The fields of an acquisition: identity, ids, execution, owner, requested TTL and, when acquired, the record. */
	static void acquire(AuditEventBuilder b, AcquireRequest request, LeaseResult r) {
		b.identity(request.identity())
			.ids(request.requestId(), null)
			.execution(request.traceId(), request.executionId(), request.jobId())
			.principal(PrincipalClass.WORKER, request.owner().principalId(), request.owner().credentialId(),
					request.owner().serviceInstanceId())
			.requestedTtlMs(request.ttlMs());
		if (r.lease() != null && r.isSuccess()) {
			b.record(r.lease()).states(null, LeaseState.ACTIVE.wireName());
		}
	}

	/**
	 * The fields of an operation of the holder of {@code handle} sent by {@code caller}, and the states when it
	 * succeeded or found the lease expired. Principal and service instance are the handle's (the acting caller's: the
	 * store compares them); the credential id is the acting caller's (any credential of the owner principal may act);
	 * trace, execution and job ids are the caller's, each one it did not name the lease record's when the result has
	 * it.
	 */
	static void holder(AuditEventBuilder b, LeaseHandle handle, @Nullable RequestCaller caller,
			@Nullable String requestId, LeaseResult r, LeaseState onSuccess) {
		b.identity(handle.identity())
			.ids(requestId, null)
			.principal(PrincipalClass.WORKER, handle.ownerPrincipalId(), (caller != null) ? caller.credentialId() : null,
					handle.serviceInstanceId())
			.lease(handle.leaseId(), handle.fencingToken());
		LeaseRecord lease = (r.isSuccess()) ? r.lease() : null;
		b.execution(first((caller != null) ? caller.traceId() : null, (lease != null) ? lease.traceId() : null),
				first((caller != null) ? caller.executionId() : null, (lease != null) ? lease.executionId() : null),
				first((caller != null) ? caller.jobId() : null, (lease != null) ? lease.jobId() : null));
		if (r.isSuccess()) {
			if (r.lease() != null) {
				b.record(r.lease());
			}
			b.states(LeaseState.ACTIVE.wireName(), onSuccess.wireName());
		}
		else if (r.reason() == Reason.EXPIRED) {
			b.states(LeaseState.EXPIRED.wireName(), LeaseState.EXPIRED.wireName());
		}
	}

	private static @Nullable String first(@Nullable String given, @Nullable String fallback) {
		return (given != null) ? given : fallback;
	}

	/** Correlation id and, for reads, the principal from the calling HTTP layer. */
	static void callerIds(AuditEventBuilder b, AuditEventType type) {
		if (type == AuditEventType.INSPECT || type == AuditEventType.RESOLVE) {
			callerContext(b);
		}
		else {
			AuditContext context = AuditContext.current();
			if (context != null && context.correlationId() != null) {
				b.correlation(context.correlationId());
			}
		}
	}

	/**
	 * Correlation id and principal (class, id, credential id and, for a worker, service instance) from the calling
	 * HTTP layer (an {@link AuditContext} is bound).
	 */
	static void callerContext(AuditEventBuilder b) {
		AuditContext context = AuditContext.current();
		if (context != null) {
			if (context.correlationId() != null) {
				b.correlation(context.correlationId());
			}
			b.principal(context.principalClass(), context.principalId(), context.credentialId(),
					context.serviceInstanceId());
		}
	}

}
