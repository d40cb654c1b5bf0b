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
		return handleFields(operation, handle).digest();
	}

	/** The digest fields of {@code handle} (lock key, lease id, owner, instance, token), more may follow. */
	static RequestDigest.Fields handleFields(Operation operation, LeaseHandle handle) {
		return RequestDigest.start(operation)
			.field(LockIdentity.KEY_PREFIX, handle.identity().keyDigest())
			.field(handle.leaseId())
			.field(handle.ownerPrincipalId())
			.field(handle.serviceInstanceId())
			.field(handle.fencingToken());
	}

}
