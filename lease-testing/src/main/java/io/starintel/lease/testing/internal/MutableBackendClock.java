package io.starintel.lease.testing.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.Supplier;

/**
 * The backend clock of the in-memory test store: the system clock, which a test can put ahead for one decision
 * ({@link #ahead}): the store then sees a lease past its expiry and ends it as {@code expired}, with its terminal
 * evidence, exactly as it does when an operation touches an expired lease. Time is put ahead only for that call, and
 * only on the thread making it: every other thread (the jobs' renewals, fenced-commit authorizations, acquisitions
 * running at the same time) reads the system clock throughout, so their requests' deadlines (from the system clock)
 * never look passed and their leases never look expired because of it. Fencing tokens stay increasing (each is above
 * the identity's counter, whatever the clock).
 */
public final class MutableBackendClock extends Clock {

	private final Clock base;

	/** The offset of the thread inside {@link #ahead} (0 everywhere else). */
	private final ThreadLocal<long[]> offsetMs = new ThreadLocal<>();

	public MutableBackendClock(Clock base) {
		this.base = base;
	}

	/**
	 * Runs {@code decision} on this thread with backend time {@code amount} ahead of the system clock, then puts it
	 * back. Only this thread sees the time ahead; calls of other threads at the same time see the system clock.
	 */
	public <T> T ahead(Duration amount, Supplier<T> decision) {
		if (amount.isNegative()) {
			throw new IllegalArgumentException("backend time is only put ahead");
		}
		long[] offset = this.offsetMs.get();
		if (offset == null) {
			offset = new long[1];
			this.offsetMs.set(offset);
		}
		long before = offset[0];
		offset[0] = before + amount.toMillis();
		try {
			return decision.get();
		}
		finally {
			offset[0] = before;
			if (before == 0) {
				this.offsetMs.remove();
			}
		}
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		return this;
	}

	@Override
	public Instant instant() {
		return this.base.instant().plusMillis(offsetMs());
	}

	@Override
	public long millis() {
		return this.base.millis() + offsetMs();
	}

	private long offsetMs() {
		long[] offset = this.offsetMs.get();
		return (offset != null) ? offset[0] : 0;
	}

}
