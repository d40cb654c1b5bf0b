package io.starintel.lease.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one mutable clock of the tests: the system clock plus an offset that a test advances, so that expiry and
 * late replies can be shown without waiting. Shared by the reference store, the fence guard and the service tests
 * (and, through this module's test-jar, by the conformance kit's run on the reference store).
 */
public final class OffsetClock extends Clock {

	private final AtomicLong offsetMillis;

	/** A clock that reads {@code offsetMillis} on every call. */
	public OffsetClock(AtomicLong offsetMillis) {
		this.offsetMillis = offsetMillis;
	}

	/** A clock with its own offset, starting at zero. */
	public OffsetClock() {
		this(new AtomicLong());
	}

	/** Moves the clock forward. */
	public void advance(Duration duration) {
		this.offsetMillis.addAndGet(duration.toMillis());
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
		return Instant.ofEpochMilli(System.currentTimeMillis() + this.offsetMillis.get());
	}

}
