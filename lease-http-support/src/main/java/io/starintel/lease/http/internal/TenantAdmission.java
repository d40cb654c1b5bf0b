package io.starintel.lease.http.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.http.Admission;

/**
 * Bounded admission per tenant: at most {@code maxInFlight} concurrent operations and a token bucket of
 * {@code permitsPerSecond} refilled continuously up to {@code burst}. Never waits: a request is admitted or refused
 * at once with a retry hint.
 *
 * <p>Contract: "429 lease_rate_limited: bounded quota or admission control rejected work", with a retry hint.
 */
public final class TenantAdmission {

	/** Retry hint when the tenant's in-flight limit (not its rate) refused the request. */
	static final long IN_FLIGHT_RETRY_MS = 50;

	private final int maxInFlight;

	private final double permitsPerSecond;

	private final double burst;

	private final LongSupplier nanoTime;

	private final Map<String, Bucket> tenants = new ConcurrentHashMap<>();

	/**
	 * A control with the configured limits, on the system nano clock.
	 * @param property the configuration prefix named when a limit is not positive (a
	 * {@code LeaseConfigurationException} naming each limit's property)
	 */
	public TenantAdmission(Admission admission, String property) {
		this(admission.maxInFlight(), admission.permitsPerSecond(), admission.burst(), System::nanoTime, property);
	}

	/**
	 * A control on the system nano clock.
	 * @param property the configuration prefix named when a limit is not positive
	 */
	public TenantAdmission(int maxInFlight, double permitsPerSecond, int burst, String property) {
		this(maxInFlight, permitsPerSecond, burst, System::nanoTime, property);
	}

	/** A control on the given nano clock (tests). */
	public TenantAdmission(int maxInFlight, double permitsPerSecond, int burst, LongSupplier nanoTime,
			String property) {
		PropertyProblems problems = new PropertyProblems(property + ".");
		AdapterPropertiesCheck.admission(problems, "", maxInFlight, permitsPerSecond, burst);
		problems.throwIfAny("Set each property listed under " + property + ".* to a positive value.");
		this.maxInFlight = maxInFlight;
		this.permitsPerSecond = permitsPerSecond;
		this.burst = burst;
		this.nanoTime = nanoTime;
	}

	/** Admits one operation of a tenant: a permit to close when done, or a rejection with a retry hint. */
	public Permit admit(String tenantId) {
		Bucket bucket = this.tenants.computeIfAbsent(tenantId, (t) -> new Bucket(this.burst, this.nanoTime.getAsLong()));
		long waitMs = bucket.take(this.nanoTime.getAsLong(), this.permitsPerSecond, this.burst);
		if (waitMs > 0) {
			return new Permit(null, waitMs);
		}
		if (!bucket.inFlight.tryAcquire()) {
			return new Permit(null, IN_FLIGHT_RETRY_MS);
		}
		return new Permit(bucket.inFlight, 0);
	}

	/** Admitted (close to release) or rejected with {@link #retryAfterMs()}. */
	public static final class Permit implements AutoCloseable {

		private @Nullable Semaphore held;

		private final long retryAfterMs;

		Permit(@Nullable Semaphore held, long retryAfterMs) {
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
			Semaphore semaphore = this.held;
			this.held = null;
			if (semaphore != null) {
				semaphore.release();
			}
		}

	}

	private final class Bucket {

		private final Semaphore inFlight = new Semaphore(TenantAdmission.this.maxInFlight);

		private double tokens;

		private long refilledAt;

		Bucket(double tokens, long now) {
			this.tokens = tokens;
			this.refilledAt = now;
		}

		/** Takes one token, or returns how long to wait for one. */
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
