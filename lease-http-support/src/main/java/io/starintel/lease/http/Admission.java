package io.starintel.lease.http;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Per-tenant admission control of an HTTP adapter ({@code starintel.lease.admin.admission.*},
 * {@code starintel.lease.worker-http.admission.*}): a token bucket and a bound on concurrent operations per tenant.
 *
 * @param maxInFlight Maximum concurrent operations per tenant.
 * @param permitsPerSecond Sustained operations per second per tenant (token-bucket refill rate).
 * @param burst Burst size of the per-tenant token bucket (its capacity).
 */
public record Admission(@DefaultValue("16") int maxInFlight, @DefaultValue("50") double permitsPerSecond,
		@DefaultValue("100") int burst) {

	/** The defaults: 16 in flight, 50 per second, bursts of 100. */
	public static Admission defaults() {
		return new Admission(16, 50, 100);
	}

}
