package io.starintel.lease.core;

import java.time.Duration;
import java.time.Instant;
import io.starintel.lease.core.internal.AttachedKeys;

/**
 * Server policy every store enforces before touching its backend.
 *
 * <p>Contract: {@code minimum_ttl_ms < ttl_ms <= maximum_ttl_ms}, a positive configured
 * {@code maximum_lifetime_ms}, and a finite deadline on every call (here: no later than
 * {@code maximumDeadline} from now). Idempotency records outlive the maximum lease lifetime plus the maximum client
 * retry window; terminal history is bounded; list pages are capped.
 *
 * @param minimumTtl exclusive lower bound of a lease TTL
 * @param maximumTtl inclusive upper bound of a lease TTL
 * @param maximumLifetime upper bound of a lease's maximum lifetime
 * @param maximumDeadline how far in the future a request deadline may lie
 * @param retryWindow maximum client retry window (added to the lifetime for idempotency retention)
 * @param historyLength terminal records kept per identity
 * @param historyRetention how long terminal history is kept
 * @param maximumPageSize server maximum list page size
 * @param clockSkewBound how far backend time may lag the last issued token before acquisition is refused
 * @param maximumAttachedKeys most keys attached to one lease (put-with-lease beyond it is refused)
 * @param maximumAttachedValueBytes largest attached value, in UTF-8 bytes
 * @param activeLeaseLimits the most active leases per program; a grant beyond it is {@code lease_rate_limited}
 */
public record LeasePolicy(Duration minimumTtl, Duration maximumTtl, Duration maximumLifetime,
		Duration maximumDeadline, Duration retryWindow, int historyLength, Duration historyRetention,
		int maximumPageSize, Duration clockSkewBound, int maximumAttachedKeys, int maximumAttachedValueBytes,
		ActiveLeaseLimits activeLeaseLimits) {

	/** Checks that the policy itself is coherent. */
	public LeasePolicy {
		if (activeLeaseLimits == null) {
			throw new IllegalArgumentException("active-lease-limits must be set");
		}
		requirePositive("minimum-ttl", minimumTtl);
		requirePositive("maximum-ttl", maximumTtl);
		requirePositive("maximum-lifetime", maximumLifetime);
		requirePositive("maximum-deadline", maximumDeadline);
		requirePositive("retry-window", retryWindow);
		requirePositive("history-retention", historyRetention);
		requirePositive("clock-skew-bound", clockSkewBound);
		if (minimumTtl.compareTo(maximumTtl) >= 0) {
			throw new IllegalArgumentException("minimum-ttl must be below maximum-ttl");
		}
		if (historyLength < 1 || maximumPageSize < 1) {
			throw new IllegalArgumentException("history-length and maximum-page-size must be positive");
		}
		if (maximumAttachedKeys < 1 || maximumAttachedValueBytes < 1) {
			throw new IllegalArgumentException(
					"maximum-attached-keys and maximum-attached-value-size must be positive");
		}
	}

	/** A policy with the default attached-key bounds ({@link AttachedKeys}). */
	public LeasePolicy(Duration minimumTtl, Duration maximumTtl, Duration maximumLifetime, Duration maximumDeadline,
			Duration retryWindow, int historyLength, Duration historyRetention, int maximumPageSize,
			Duration clockSkewBound) {
		this(minimumTtl, maximumTtl, maximumLifetime, maximumDeadline, retryWindow, historyLength, historyRetention,
				maximumPageSize, clockSkewBound, AttachedKeys.DEFAULT_MAXIMUM_KEYS_PER_LEASE,
				AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES, ActiveLeaseLimits.defaults());
	}

	/** A policy with the default active-lease limits ({@link ActiveLeaseLimits#defaults()}). */
	public LeasePolicy(Duration minimumTtl, Duration maximumTtl, Duration maximumLifetime, Duration maximumDeadline,
			Duration retryWindow, int historyLength, Duration historyRetention, int maximumPageSize,
			Duration clockSkewBound, int maximumAttachedKeys, int maximumAttachedValueBytes) {
		this(minimumTtl, maximumTtl, maximumLifetime, maximumDeadline, retryWindow, historyLength, historyRetention,
				maximumPageSize, clockSkewBound, maximumAttachedKeys, maximumAttachedValueBytes,
				ActiveLeaseLimits.defaults());
	}

	/** Defaults: TTL in (1s, 10m], lifetime up to 24h, deadlines up to 2m ahead, 16 history entries, pages of 500. */
	public static LeasePolicy defaults() {
		return new LeasePolicy(Duration.ofSeconds(1), Duration.ofMinutes(10), Duration.ofHours(24),
				Duration.ofMinutes(2), Duration.ofHours(1), 16, Duration.ofDays(7), 500, Duration.ofSeconds(30));
	}

	/** A copy with other TTL bounds. */
	public LeasePolicy withTtlBounds(Duration minimum, Duration maximum) {
		return new LeasePolicy(minimum, maximum, this.maximumLifetime, this.maximumDeadline, this.retryWindow,
				this.historyLength, this.historyRetention, this.maximumPageSize, this.clockSkewBound,
				this.maximumAttachedKeys, this.maximumAttachedValueBytes, this.activeLeaseLimits);
	}

	/** A copy with another clock-skew bound. */
	public LeasePolicy withClockSkewBound(Duration bound) {
		return new LeasePolicy(this.minimumTtl, this.maximumTtl, this.maximumLifetime, this.maximumDeadline,
				this.retryWindow, this.historyLength, this.historyRetention, this.maximumPageSize, bound,
				this.maximumAttachedKeys, this.maximumAttachedValueBytes, this.activeLeaseLimits);
	}

	/** A copy with other attached-key bounds. */
	public LeasePolicy withAttachedKeyBounds(int maximumKeys, int maximumValueBytes) {
		return new LeasePolicy(this.minimumTtl, this.maximumTtl, this.maximumLifetime, this.maximumDeadline,
				this.retryWindow, this.historyLength, this.historyRetention, this.maximumPageSize, this.clockSkewBound,
				maximumKeys, maximumValueBytes, this.activeLeaseLimits);
	}

	/**
	 * Checks a put-with-lease against the policy: the value bound and a finite deadline.
	 * @throws InvalidLeaseRequestException naming {@code attached_value} or {@code deadline_at}
	 */
	public void check(AttachPutRequest request, Instant now) {
		if (AttachedKeys.valueBytes(request.value()) > this.maximumAttachedValueBytes) {
			throw new InvalidLeaseRequestException("attached_value",
					"larger than " + this.maximumAttachedValueBytes + " bytes");
		}
		checkDeadline(request.deadlineAt(), now);
	}

	/** A copy with other active-lease limits. */
	public LeasePolicy withActiveLeaseLimits(ActiveLeaseLimits limits) {
		return new LeasePolicy(this.minimumTtl, this.maximumTtl, this.maximumLifetime, this.maximumDeadline,
				this.retryWindow, this.historyLength, this.historyRetention, this.maximumPageSize, this.clockSkewBound,
				this.maximumAttachedKeys, this.maximumAttachedValueBytes, limits);
	}

	/** The most active leases the program may hold (contract: bounded quota, {@code lease_rate_limited} beyond). */
	public long maximumActiveLeases(ProgramScope scope) {
		return this.activeLeaseLimits.limitFor(scope);
	}

	/** How long idempotency records are kept: maximum lifetime plus retry window. */
	public Duration idempotencyRetention() {
		return this.maximumLifetime.plus(this.retryWindow);
	}

	/**
	 * Checks an acquire request against the policy: {@code minimum_ttl_ms < ttl_ms <= maximum_ttl_ms} and
	 * {@code ttl_ms <= maximum_lifetime_ms <= the policy's maximum lifetime}.
	 * @throws InvalidLeaseRequestException naming {@code ttl_ms}, {@code maximum_lifetime_ms} or {@code deadline_at}
	 */
	public void check(AcquireRequest request, Instant now) {
		if (request.ttlMs() <= this.minimumTtl.toMillis() || request.ttlMs() > this.maximumTtl.toMillis()) {
			throw new InvalidLeaseRequestException("ttl_ms", "must satisfy minimum_ttl_ms < ttl_ms <= maximum_ttl_ms");
		}
		if (request.maximumLifetimeMs() <= 0 || request.maximumLifetimeMs() > this.maximumLifetime.toMillis()) {
			throw new InvalidLeaseRequestException("maximum_lifetime_ms", "must be positive and within policy");
		}
		// contract: expires_at is bounded by the maximum lifetime, so a lifetime below the TTL would grant a lease
		// that ends long before the TTL the caller asked for (the @TargetLeased verifier's ttl <= maxLifetime)
		if (request.maximumLifetimeMs() < request.ttlMs()) {
			throw new InvalidLeaseRequestException("maximum_lifetime_ms", "must be at least ttl_ms");
		}
		checkDeadline(request.deadlineAt(), now);
	}

	/**
	 * Checks the new TTL of a renewal: the same bounds as an acquisition's ({@code minimum_ttl_ms < ttl_ms <=
	 * maximum_ttl_ms}); the maximum lifetime still caps the resulting expiry.
	 * @throws InvalidLeaseRequestException naming {@code ttl_ms}
	 */
	public void checkRenewTtl(long ttlMs) {
		if (ttlMs <= this.minimumTtl.toMillis() || ttlMs > this.maximumTtl.toMillis()) {
			throw new InvalidLeaseRequestException("ttl_ms", "must satisfy minimum_ttl_ms < ttl_ms <= maximum_ttl_ms");
		}
	}

	/**
	 * Checks that a deadline is finite: not later than {@code maximumDeadline} after {@code now}.
	 * @throws InvalidLeaseRequestException naming {@code deadline_at}
	 */
	public void checkDeadline(Instant deadlineAt, Instant now) {
		if (isBeyondMaximumDeadline(deadlineAt, now)) {
			throw new InvalidLeaseRequestException("deadline_at", "further ahead than the policy allows");
		}
	}

	/**
	 * Whether a deadline is later than {@code maximumDeadline} after {@code now}: such a call is invalid, whatever
	 * its operation (no call waits on the backend longer than the maximum deadline).
	 */
	public boolean isBeyondMaximumDeadline(Instant deadlineAt, Instant now) {
		return deadlineAt.isAfter(now.plus(this.maximumDeadline));
	}

	/** The effective page size: the request's, capped at the server maximum. */
	public int pageSize(int requested) {
		return Math.min(requested, this.maximumPageSize);
	}

	private static void requirePositive(String name, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be a positive duration");
		}
	}

}
