package io.starintel.lease.core;

/**
 * Thrown by validating factories when input breaks the contract; always maps to
 * {@link ResultCode#INVALID_LEASE_REQUEST}. The message names the offending field and the rule, never the
 * rejected value, so it is safe to log and to return.
 */
public class InvalidLeaseRequestException extends RuntimeException {

	private final String field;

	public InvalidLeaseRequestException(String field, String rule) {
		super(field + ": " + rule, null, false, false);
		this.field = field;
	}

	/** Name of the offending field or identity component. */
	public String field() {
		return this.field;
	}

	/** The typed result code, always {@link ResultCode#INVALID_LEASE_REQUEST}. */
	public ResultCode code() {
		return ResultCode.INVALID_LEASE_REQUEST;
	}

}
