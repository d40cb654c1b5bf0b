package io.starintel.lease.audit;

import io.starintel.lease.core.ResultCode;

/**
 * Backend health class of an audited decision (contract: "backend health class"); never a backend name.
 */
public enum BackendHealth {

	/** The backend decided. */
	OK("ok"),
	/** The backend could not be reached before submission. */
	UNAVAILABLE("unavailable"),
	/** The request was submitted and no reply arrived: the outcome is unknown. */
	UNKNOWN("unknown"),
	/** The request never reached the backend (refused before lease access). */
	NOT_CONTACTED("not_contacted");

	private final String wireName;

	BackendHealth(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name. */
	public String wireName() {
		return this.wireName;
	}

	/** The health class implied by a result code. */
	public static BackendHealth of(ResultCode code) {
		if (code == ResultCode.LEASE_BACKEND_UNAVAILABLE) {
			return UNAVAILABLE;
		}
		if (code == ResultCode.LEASE_OUTCOME_UNKNOWN) {
			return UNKNOWN;
		}
		if (code == ResultCode.INVALID_LEASE_REQUEST || code == ResultCode.INVALID_CREDENTIAL
				|| code == ResultCode.ACCESS_DENIED || code == ResultCode.LEASE_RATE_LIMITED) {
			return NOT_CONTACTED;
		}
		return OK;
	}

}
