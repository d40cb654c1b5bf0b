package io.starintel.lease.admin.console;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of the operator console ({@code starintel.lease.admin.console.*}). The console uses the admin
 * endpoint's credentials ({@code starintel.lease.admin.credentials}) and is off with
 * {@code starintel.lease.admin.enabled=false} too. The bounds must be 1..100000 (start-up fails naming the property).
 *
 * @param enabled Whether the operator console (page, form login and its JSON API) is enabled.
 * @param recentEvents Most audit events shown in one lease's detail (newest first).
 * @param scanDepth Newest entries read from each durable audit stream of a program for a lease's events and for
 * fencing health (bounds the work of one console request).
 * @param recentLosses Most recent lease losses (revokes, force-releases, expiries) shown in fencing health.
 */
@ConfigurationProperties("starintel.lease.admin.console")
public record ConsoleProperties(@DefaultValue("true") boolean enabled, @DefaultValue("50") int recentEvents,
		@DefaultValue("2000") int scanDepth, @DefaultValue("20") int recentLosses) {

	/** Checks the bounds. */
	public ConsoleProperties {
		positive("recent-events", recentEvents);
		positive("scan-depth", scanDepth);
		positive("recent-losses", recentLosses);
	}

	private static void positive(String name, int value) {
		if (value < 1 || value > 100_000) {
			throw new IllegalArgumentException("starintel.lease.admin.console." + name + " must be 1..100000");
		}
	}

}
