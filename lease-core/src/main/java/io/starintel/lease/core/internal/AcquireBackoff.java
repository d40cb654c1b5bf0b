package io.starintel.lease.core.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The pause between two attempts of a bounded-wait acquisition (the one home of that rule, used by the
 * {@code @TargetLeased} jobs and by {@code LeaseStore.acquireWaiting}): exponential from 25 ms up to 1 s, never longer
 * than the conflict's {@code retry_after_ms}, jittered over its upper half, at least 5 ms and never past the time
 * left of the wait.
 */
public final class AcquireBackoff {

	private AcquireBackoff() {
	}

	/**
	 * The pause before the next attempt.
	 * @param attempt the attempt just refused (0 for the first)
	 * @param retryAfterMs the refusal's {@code retry_after_ms} (0 when it gave none)
	 * @param remainingMs the time left of the wait (positive)
	 * @return milliseconds to wait, in {@code [1, remainingMs]}
	 */
	public static long pauseMs(int attempt, long retryAfterMs, long remainingMs) {
		long backoff = Math.min(1000, 25L << Math.min(attempt, 6));
		if (retryAfterMs > 0) {
			backoff = Math.min(backoff, retryAfterMs);
		}
		long jittered = Math.max(5, backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1));
		return Math.max(1, Math.min(remainingMs, jittered));
	}

}
