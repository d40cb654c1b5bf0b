package io.starintel.lease.core;

/**
 * The closed set of typed result codes of the target-lease contract.
 *
 * <p>Contract: every public operation returns one of these codes; backend booleans, {@code null} and raw
 * backend errors never cross the store boundary. Each code carries its wire name, the HTTP status of the
 * contract's table, and whether a caller may retry (with a new request id, or the same one for
 * {@link #LEASE_OUTCOME_UNKNOWN}).
 */
public enum ResultCode {

	LEASE_ACQUIRED("lease_acquired", 200, false),
	LEASE_RENEWED("lease_renewed", 200, false),
	LEASE_RELEASED("lease_released", 200, false),
	LEASE_INSPECTED("lease_inspected", 200, false),
	LEASE_LISTED("lease_listed", 200, false),
	LEASE_REVOKED("lease_revoked", 200, false),
	/** A fenced commit was authorized at backend time (FenceGuard). */
	LEASE_COMMIT_AUTHORIZED("lease_commit_authorized", 200, false),
	/** A key was stored attached to a lease (put-with-lease). */
	ATTACHMENT_STORED("attachment_stored", 200, false),
	/** An attached key was read. */
	ATTACHMENT_READ("attachment_read", 200, false),
	/** An attached key was deleted by its lease's holder. */
	ATTACHMENT_DELETED("attachment_deleted", 200, false),
	/** The names of a lease's attached keys were listed. */
	ATTACHMENTS_LISTED("attachments_listed", 200, false),
	INVALID_LEASE_REQUEST("invalid_lease_request", 400, false),
	INVALID_CREDENTIAL("invalid_credential", 401, false),
	ACCESS_DENIED("access_denied", 403, false),
	LEASE_NOT_FOUND("lease_not_found", 404, false),
	DEADLINE_EXCEEDED("deadline_exceeded", 408, true),
	LEASE_CONFLICT("lease_conflict", 409, true),
	LEASE_LOST("lease_lost", 409, false),
	IDEMPOTENCY_CONFLICT("idempotency_conflict", 409, false),
	LEASE_RATE_LIMITED("lease_rate_limited", 429, true),
	LEASE_BACKEND_UNAVAILABLE("lease_backend_unavailable", 503, true),
	LEASE_OUTCOME_UNKNOWN("lease_outcome_unknown", 503, true);

	private final String wireName;

	private final int httpStatus;

	private final boolean retryable;

	ResultCode(String wireName, int httpStatus, boolean retryable) {
		this.wireName = wireName;
		this.httpStatus = httpStatus;
		this.retryable = retryable;
	}

	/** Contract wire name, e.g. {@code lease_conflict}. */
	public String wireName() {
		return this.wireName;
	}

	/** HTTP status of the contract's table. */
	public int httpStatus() {
		return this.httpStatus;
	}

	/** Whether the contract marks the code as retryable. */
	public boolean retryable() {
		return this.retryable;
	}

	/** Whether the operation completed (a 2xx code). */
	public boolean isSuccess() {
		return this.httpStatus / 100 == 2;
	}

	private static final ResultCode[] VALUES = values();

	/** Looks a code up by its wire name. */
	public static ResultCode fromWireName(String wireName) {
		for (ResultCode code : VALUES) {
			if (code.wireName.equals(wireName)) {
				return code;
			}
		}
		throw new IllegalArgumentException("unknown result code");
	}

}
