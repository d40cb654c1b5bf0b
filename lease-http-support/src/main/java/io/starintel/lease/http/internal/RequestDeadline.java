package io.starintel.lease.http.internal;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePolicy;

/**
 * The {@code deadline_at} of a request. Contract: every call has a finite deadline; absent, it is now plus the
 * adapter's default; later than the policy's maximum deadline it is malformed. Whether a past deadline is
 * {@code deadline_exceeded} (checked before submission) is the caller's next step.
 */
public final class RequestDeadline {

	private RequestDeadline() {
	}

	/**
	 * Parses a deadline.
	 * @param text the {@code deadline_at} value, or {@code null} when absent
	 * @param now the server's current time
	 * @param defaultDeadline how far ahead an absent deadline lies
	 * @param policy the lease policy (maximum deadline)
	 * @param plausiblePast how far in the past a deadline may lie before it is malformed rather than past
	 * ({@code null}: any, since 1970)
	 * @return the deadline
	 * @throws InvalidLeaseRequestException naming {@code deadline_at}
	 */
	public static Instant parse(@Nullable String text, Instant now, Duration defaultDeadline, LeasePolicy policy,
			@Nullable Duration plausiblePast) {
		if (text == null) {
			return now.plus(defaultDeadline);
		}
		Instant deadline = StrictJson.instant("deadline_at", text);
		if (plausiblePast != null && deadline.isBefore(now.minus(plausiblePast))) {
			throw new InvalidLeaseRequestException("deadline_at", "implausibly far in the past");
		}
		policy.checkDeadline(deadline, now);
		return deadline;
	}

}
