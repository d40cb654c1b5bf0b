package io.starintel.lease.worker;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Bounded admission per tenant: at most {@code maxInFlight} concurrent worker operations and a token bucket of
 * {@code permitsPerSecond} refilled continuously up to {@code burst}.
 *
 * <p>Contract: "429 lease_rate_limited: bounded quota or admission control rejected work", with a retry hint.
 */
final class WorkerAdmission {

	private final int maxInFlight;

	private final double permitsPerSecond;

	private final double burst;

	private final LongSupplier nanoTime;

	private final Map<String, Bucket> tenants = new ConcurrentHashMap<>();

	WorkerAdmission(WorkerHttpProperties.Admission limits) {
		this(limits.maxInFlight(), limits.permitsPerSecond(), limits.burst(), System::nanoTime);
	}

	WorkerAdmission(int maxInFlight, double permitsPerSecond, int burst, LongSupplier nanoTime) {
		if (maxInFlight < 1 || permitsPerSecond <= 0 || burst < 1) {
			throw new IllegalArgumentException("starintel.lease.worker-http.admission.* limits must be positive");
		}
		this.maxInFlight = maxInFlight;
		this.permitsPerSecond = permitsPerSecond;
		this.burst = burst;
		this.nanoTime = nanoTime;
	}

	/** Admits one operation: a permit to close when done, or a rejection with a retry hint. */
	Permit admit(String tenantId) {
		Bucket bucket = this.tenants.computeIfAbsent(tenantId, (t) -> new Bucket(this.burst, this.nanoTime.getAsLong()));
		long waitMs = bucket.take(this.nanoTime.getAsLong(), this.permitsPerSecond, this.burst);
		if (waitMs > 0) {
			return new Permit(null, waitMs);
		}
		if (!bucket.inFlight.tryAcquire()) {
			return new Permit(null, 50);
		}
		return new Permit(bucket.inFlight, 0);
	}

	/** Admitted (close to release) or rejected with {@link #retryAfterMs()}. */
	static final class Permit implements AutoCloseable {

		private @Nullable Semaphore held;

		private final long retryAfterMs;

		Permit(@Nullable Semaphore held, long retryAfterMs) {
			this.held = held;
			this.retryAfterMs = retryAfterMs;
		}

		boolean admitted() {
			return this.retryAfterMs == 0;
		}

		long retryAfterMs() {
			return this.retryAfterMs;
		}

		@Override
		public void close() {
			Semaphore semaphore = this.held;
			this.held = null;
			if (semaphore != null) {
				semaphore.release();
			}
		}

	}

	private final class Bucket {

		private final Semaphore inFlight = new Semaphore(WorkerAdmission.this.maxInFlight);

		private double tokens;

		private long refilledAt;

		Bucket(double tokens, long now) {
			this.tokens = tokens;
			this.refilledAt = now;
		}

		synchronized long take(long now, double rate, double capacity) {
			double elapsedSeconds = (now - this.refilledAt) / 1_000_000_000.0;
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
