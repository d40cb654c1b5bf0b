package io.starintel.lease.testing.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The backend clock of the in-memory test store: the system clock, which a test can put ahead for one decision
 * ({@link #ahead}): the store then sees a lease past its expiry and ends it as {@code expired}, with its terminal
 * evidence, exactly as it does when an operation touches an expired lease. Time is put ahead only for that call:
 * requests carry deadlines from the system clock, which a lasting offset would make look passed. Fencing tokens
 * stay increasing (each is above the identity's counter, whatever the clock).
 */
public final class MutableBackendClock extends Clock {

	private final Clock base;

	private final AtomicLong offsetMs;

	public MutableBackendClock(Clock base) {
		this(base, new AtomicLong());
	}

	private MutableBackendClock(Clock base, AtomicLong offsetMs) {
		this.base = base;
		this.offsetMs = offsetMs;
	}

	/** Runs {@code decision} with backend time {@code amount} ahead of the system clock, then puts it back. */
	public <T> T ahead(Duration amount, Supplier<T> decision) {
		if (amount.isNegative()) {
			throw new IllegalArgumentException("backend time is only put ahead");
		}
		this.offsetMs.addAndGet(amount.toMillis());
		try {
			return decision.get();
		}
		finally {
			this.offsetMs.addAndGet(-amount.toMillis());
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
		return this.base.instant().plusMillis(this.offsetMs.get());
	}

	@Override
	public long millis() {
		return this.base.millis() + this.offsetMs.get();
	}

}
