package io.starintel.lease.core;

import java.time.Instant;
import io.starintel.lease.core.internal.RequestDigest;

/**
 * Shared validation of request fields.
 */
final class RequestFields {

	private RequestFields() {
	}

	static void requireIdentity(LockIdentity identity) {
		if (identity == null) {
			throw new InvalidLeaseRequestException("lock_identity", "missing");
		}
	}

	static void requireHandle(LeaseHandle handle) {
		if (handle == null) {
			throw new InvalidLeaseRequestException("lease", "missing");
		}
	}

	static void requireDeadline(Instant deadlineAt) {
		if (deadlineAt == null) {
			throw new InvalidLeaseRequestException("deadline_at", "missing");
		}
	}

	static void requireReason(String reason) {
		if (reason == null || reason.isBlank() || reason.length() > AdminRequest.MAX_REASON_LENGTH) {
			throw new InvalidLeaseRequestException("reason", "must be 1.." + AdminRequest.MAX_REASON_LENGTH
					+ " characters");
		}
		for (int i = 0; i < reason.length(); i++) {
			if (Character.isISOControl(reason.charAt(i))) {
				throw new InvalidLeaseRequestException("reason", "control characters");
			}
		}
	}

	static String handleDigest(Operation operation, LeaseHandle handle) {
		return RequestDigest.of(operation, handle.identity().lockKey(), handle.leaseId(), handle.ownerPrincipalId(),
				handle.serviceInstanceId(), handle.fencingToken());
	}

}
