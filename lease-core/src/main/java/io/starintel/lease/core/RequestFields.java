package io.starintel.lease.core;

import java.time.Duration;
import java.time.Instant;
import io.starintel.lease.core.internal.PlainText;
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
		// the contract's times are epoch milliseconds, and a backend computes with them (remaining time, expiry): a
		// deadline outside 1970..9999 is no real deadline, and at the extremes of Instant it has no millisecond value
		if (deadlineAt.isBefore(Instant.EPOCH) || deadlineAt.isAfter(MAX_DEADLINE)) {
			throw new InvalidLeaseRequestException("deadline_at", "outside 1970-01-01..9999-12-31");
		}
	}

	private static final Instant MAX_DEADLINE = Instant.parse("9999-12-31T23:59:59.999Z");

	/**
	 * The milliseconds of a duration given to a builder: a missing one, or one without a millisecond value (beyond
	 * about 292 million years), is the typed {@link InvalidLeaseRequestException} naming the field.
	 */
	static long millis(String field, Duration duration) {
		if (duration == null) {
			throw new InvalidLeaseRequestException(field, "missing");
		}
		try {
			return duration.toMillis();
		}
		catch (ArithmeticException ex) {
			throw new InvalidLeaseRequestException(field, "out of range");
		}
	}

	/** A text that is well-formed UTF-16 (no unpaired surrogate), as every store keeps it in UTF-8. */
	static void requireWellFormed(String field, String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				throw new InvalidLeaseRequestException(field, "not valid Unicode (an unpaired surrogate)");
			}
		}
	}

	static void requireReason(String reason) {
		if (reason == null || reason.isBlank() || reason.length() > AdminRequest.MAX_REASON_LENGTH) {
			throw new InvalidLeaseRequestException("reason", "must be 1.." + AdminRequest.MAX_REASON_LENGTH
					+ " characters");
		}
		String problem = PlainText.problem(reason);
		if (problem != null) {
			throw new InvalidLeaseRequestException("reason", problem);
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
