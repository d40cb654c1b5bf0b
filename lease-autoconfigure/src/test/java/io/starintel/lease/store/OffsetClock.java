package io.starintel.lease.store;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend clock for the reference store in tests: the system clock plus an offset that a test advances, so
 * that expiry can be shown without waiting.
 */
public final class OffsetClock extends Clock {

	private final AtomicLong offsetMillis;

	/** A clock that reads {@code offsetMillis} on every call. */
	public OffsetClock(AtomicLong offsetMillis) {
		this.offsetMillis = offsetMillis;
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
