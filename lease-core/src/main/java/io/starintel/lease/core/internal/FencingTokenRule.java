package io.starintel.lease.core.internal;

import io.starintel.lease.core.LeaseRecord;

/**
 * The fencing-token rule, the Java home of it (the Redis function library's {@code lease.lua} is the Lua home):
 * {@code token = max(counter + 1, backend_ms * 1024)}, strictly below {@link LeaseRecord#MAX_FENCING_TOKEN}
 * (2^53 - 1, exact in JSON and Lua numbers), refused when the durable counter is ahead of backend time by more than
 * the clock-skew bound. Floored at backend time, the next token stays above every earlier one even after the
 * counter was lost (restart without persistence, old snapshot), while one identity is granted fewer than 1024
 * leases per millisecond and until the year 2248.
 */
public final class FencingTokenRule {

	/** Tokens per millisecond of backend time. */
	public static final long PER_MILLISECOND = 1024;

	/** Why no token can be issued. */
	public enum Refusal {

		/** The counter is ahead of backend time by more than the skew bound ({@code backend_clock_behind}). */
		CLOCK_BEHIND,
		/** The next token would reach 2^53 - 1 ({@code fencing_counter_exhausted}). */
		EXHAUSTED

	}

	private FencingTokenRule() {
	}

	/**
	 * The next token after {@code counter} at backend time {@code nowMs}, or a negative number when refused (see
	 * {@link #refusal}).
	 */
	public static long next(long counter, long nowMs, long clockSkewMs) {
		if (counter > (nowMs + clockSkewMs) * PER_MILLISECOND) {
			return -1;
		}
		long token = Math.max(counter + 1, nowMs * PER_MILLISECOND);
		return (token >= LeaseRecord.MAX_FENCING_TOKEN) ? -2 : token;
	}

	/** The refusal a negative {@link #next} result stands for. */
	public static Refusal refusal(long next) {
		return (next == -1) ? Refusal.CLOCK_BEHIND : Refusal.EXHAUSTED;
	}

}
