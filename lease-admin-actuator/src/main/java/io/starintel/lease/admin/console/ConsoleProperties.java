package io.starintel.lease.admin.console;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import io.starintel.lease.core.internal.PropertyProblems;

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

	/** Checks the bounds, reporting every value out of them at once, each naming its property. */
	public ConsoleProperties {
		PropertyProblems problems = new PropertyProblems("starintel.lease.admin.console.");
		problems.between("recent-events", recentEvents, 1, 100_000);
		problems.between("scan-depth", scanDepth, 1, 100_000);
		problems.between("recent-losses", recentLosses, 1, 100_000);
		problems.throwIfAny("Set each property listed under starintel.lease.admin.console.* to 1..100000; see "
				+ "docs/admin.md.");
	}

}
