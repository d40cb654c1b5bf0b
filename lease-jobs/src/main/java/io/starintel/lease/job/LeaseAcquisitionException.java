package io.starintel.lease.job;

import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * Thrown when a {@link TargetLeased} method's lease could not be acquired for a reason other than a conflict with
 * {@link ConflictPolicy#SKIP}: backend unavailable, outcome unknown after resolution, deadline exceeded, invalid
 * request, rate limited. The method did not run (contract: availability is sacrificed when ownership is uncertain).
 */
public class LeaseAcquisitionException extends RuntimeException {

	private final ResultCode code;

	private final Reason reason;

	/** An acquisition failure with its typed result. */
	public LeaseAcquisitionException(ResultCode code, Reason reason, String message) {
		super(message + " [" + code.wireName() + "/" + reason.wireName() + "]");
		this.code = code;
		this.reason = reason;
	}

	/** An acquisition failure with its typed result and the cause (e.g. a target resolver's exception). */
	public LeaseAcquisitionException(ResultCode code, Reason reason, String message, Throwable cause) {
		super(message + " [" + code.wireName() + "/" + reason.wireName() + "]", cause);
		this.code = code;
		this.reason = reason;
	}

	/** The typed result code. */
	public ResultCode code() {
		return this.code;
	}

	/** The typed reason. */
	public Reason reason() {
		return this.reason;
	}

}
