package io.starintel.lease.http.internal;

import java.time.Duration;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.http.Admission;

/**
 * The rules the two HTTP adapters ({@code starintel.lease.admin.*}, {@code starintel.lease.worker-http.*}) share for
 * their common properties: the body bound, the default deadline and the admission limits. Each problem is recorded in
 * the adapter's {@link PropertyProblems}, so that it is reported with the adapter's other problems, naming its
 * property, in the starter's one "APPLICATION FAILED TO START" report.
 */
public final class AdapterPropertiesCheck {

	/** Smallest {@code max-body-bytes}: below it, ordinary requests (ids, identity, metadata) no longer fit. */
	public static final int MINIMUM_BODY_BYTES = 256;

	/**
	 * Largest {@code max-body-bytes} (1 MiB): far above any request of either API, and a bound on the memory one
	 * request may hold while it is read (the body is read whole, as bytes, before it is parsed).
	 */
	public static final int MAXIMUM_BODY_BYTES = 1024 * 1024;

	private AdapterPropertiesCheck() {
	}

	/**
	 * Checks the adapter's own common properties.
	 * @param problems the adapter's problems (prefix {@code starintel.lease.admin.} or
	 * {@code starintel.lease.worker-http.})
	 * @param maxBodyBytes {@code max-body-bytes}
	 * @param defaultDeadline {@code default-deadline}
	 * @param admission {@code admission.*}
	 */
	public static void check(PropertyProblems problems, int maxBodyBytes, Duration defaultDeadline,
			Admission admission) {
		problems.between("max-body-bytes", maxBodyBytes, MINIMUM_BODY_BYTES, MAXIMUM_BODY_BYTES);
		problems.positive("default-deadline", defaultDeadline);
		admission(problems, "admission.", admission.maxInFlight(), admission.permitsPerSecond(), admission.burst());
	}

	/**
	 * Checks the admission limits: each must be positive (a zero in-flight bound or rate would refuse every request).
	 * @param problems where to record problems
	 * @param group the keys' group within the problems' prefix ({@code admission.}, or empty)
	 * @param maxInFlight {@code max-in-flight}
	 * @param permitsPerSecond {@code permits-per-second}
	 * @param burst {@code burst}
	 */
	public static void admission(PropertyProblems problems, String group, int maxInFlight, double permitsPerSecond,
			int burst) {
		problems.atLeast(group + "max-in-flight", maxInFlight, 1);
		if (!(permitsPerSecond > 0) || Double.isInfinite(permitsPerSecond)) {
			problems.add(group + "permits-per-second", "(" + permitsPerSecond + ") must be a positive number");
		}
		problems.atLeast(group + "burst", burst, 1);
	}

	/**
	 * Checks the default deadline against the lease policy: a default beyond
	 * {@code starintel.lease.request.maximum-deadline} would have the store refuse every request that gives no
	 * {@code deadline_at}.
	 * @param problems the adapter's problems
	 * @param defaultDeadline {@code default-deadline} (checked positive before)
	 * @param policy the lease policy the adapter serves
	 */
	public static void checkAgainst(PropertyProblems problems, Duration defaultDeadline, LeasePolicy policy) {
		problems.notAbove("default-deadline", defaultDeadline, "starintel.lease.request.maximum-deadline",
				policy.maximumDeadline(), false, "");
	}

}
