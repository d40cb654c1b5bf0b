package io.starintel.lease.audit.internal;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.Reason;

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

	/** The fields of an operation of the holder of {@code handle}, and the states when it succeeded or found the lease expired. */
	static void holder(AuditEventBuilder b, LeaseHandle handle, @Nullable String requestId, LeaseResult r,
			LeaseState onSuccess) {
		b.identity(handle.identity())
			.ids(requestId, null)
			.principal(PrincipalClass.WORKER, handle.ownerPrincipalId(), null, handle.serviceInstanceId())
			.lease(handle.leaseId(), handle.fencingToken());
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

	/** Correlation id and principal from the calling HTTP layer (an {@link AuditContext} is bound). */
	static void callerContext(AuditEventBuilder b) {
		AuditContext context = AuditContext.current();
		if (context != null) {
			if (context.correlationId() != null) {
				b.correlation(context.correlationId());
			}
			b.principal(context.principalClass(), context.principalId(), context.credentialId(), null);
		}
	}

}
