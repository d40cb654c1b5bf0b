package io.starintel.lease.admin;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

/**
 * Bounded admission per tenant: at most {@code maxInFlight} concurrent operations and a token bucket of
 * {@code permitsPerSecond} refilled continuously up to {@code burst}.
 *
 * <p>Contract: "429 lease_rate_limited: bounded quota or admission control rejected work", with a retry hint.
 */
public final class TenantAdmissionControl {

	private final int maxInFlight;

	private final double permitsPerSecond;

	private final double burst;

	private final LongSupplier nanoTime;

	private final Map<String, Tenant> tenants = new ConcurrentHashMap<>();

	/** A control on the system nano clock. */
	public TenantAdmissionControl(int maxInFlight, double permitsPerSecond, int burst) {
		this(maxInFlight, permitsPerSecond, burst, System::nanoTime);
	}

	TenantAdmissionControl(int maxInFlight, double permitsPerSecond, int burst, LongSupplier nanoTime) {
		if (maxInFlight < 1 || permitsPerSecond <= 0 || burst < 1) {
			throw new IllegalArgumentException("admission limits must be positive");
		}
		this.maxInFlight = maxInFlight;
		this.permitsPerSecond = permitsPerSecond;
		this.burst = burst;
		this.nanoTime = nanoTime;
	}

	/** Admits one operation of a tenant: a permit to close when done, or a rejection with a retry hint. */
	public Admission admit(String tenantId) {
		Tenant tenant = this.tenants.computeIfAbsent(tenantId, t -> new Tenant(this.burst, this.nanoTime.getAsLong()));
		long waitMs = tenant.take(this.nanoTime.getAsLong(), this.permitsPerSecond, this.burst);
		if (waitMs > 0) {
			return new Admission(null, waitMs);
		}
		if (!tenant.inFlight.tryAcquire()) {
			return new Admission(null, 50);
		}
		return new Admission(tenant.inFlight, 0);
	}

	/** Result of {@link #admit(String)}: admitted (close to release) or rejected with {@link #retryAfterMs()}. */
	public static final class Admission implements AutoCloseable {

		private Semaphore held;

		private final long retryAfterMs;

		Admission(Semaphore held, long retryAfterMs) {
			this.held = held;
			this.retryAfterMs = retryAfterMs;
		}

		/** Whether the operation may proceed. */
		public boolean admitted() {
			return this.retryAfterMs == 0;
		}

		/** Milliseconds after which a retry may be admitted (0 when admitted). */
		public long retryAfterMs() {
			return this.retryAfterMs;
		}

		@Override
		public void close() {
			if (this.held != null) {
				this.held.release();
				this.held = null;
			}
		}

	}

	private final class Tenant {

		private final Semaphore inFlight = new Semaphore(TenantAdmissionControl.this.maxInFlight);

		private double tokens;

		private long refilledAt;

		Tenant(double tokens, long now) {
			this.tokens = tokens;
			this.refilledAt = now;
		}

		/** Takes one token, or returns how long to wait for one. */
		synchronized long take(long now, double rate, double capacity) {
			double elapsedSeconds = (now - this.refilledAt) / (double) Duration.ofSeconds(1).toNanos();
			this.tokens = Math.min(capacity, this.tokens + Math.max(0, elapsedSeconds) * rate);
			this.refilledAt = now;
			if (this.tokens >= 1) {
				this.tokens -= 1;
				return 0;
			}
			return Math.max(1, (long) Math.ceil((1 - this.tokens) / rate * 1000));
		}

	}

}
