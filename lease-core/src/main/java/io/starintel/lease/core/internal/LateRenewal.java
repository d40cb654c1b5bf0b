package io.starintel.lease.core.internal;

import java.time.Instant;

import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;

/**
 * Contract: a renewal response received after the request's deadline does not grant authority. The one home of the
 * rule, applied where a renewal's answer is decided and audited (the audited store, so the event carries the code the
 * caller is answered) and again by the lease service over an unaudited store.
 */
public final class LateRenewal {

	private LateRenewal() {
	}

	/** {@code lease_outcome_unknown} (reason {@code reply_lost}) for a success received after the deadline. */
	public static LeaseResult answer(LeaseResult result, RenewRequest request, Instant receivedAt) {
		if (result.isSuccess() && receivedAt.isAfter(request.deadlineAt())) {
			return LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, result.decidedAt());
		}
		return result;
	}

}
