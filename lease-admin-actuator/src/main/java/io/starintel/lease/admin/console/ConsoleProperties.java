package io.starintel.lease.admin.console;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the operator console ({@code starintel.lease.admin.console.*}). The console uses the admin
 * endpoint's credentials ({@code starintel.lease.admin.credentials}) and is off with
 * {@code starintel.lease.admin.enabled=false} too.
 */
@ConfigurationProperties("starintel.lease.admin.console")
public class ConsoleProperties {

	/** Whether the operator console (page, form login and its JSON API) is enabled. */
	private boolean enabled = true;

	/** Most audit events shown in one lease's detail (newest first). */
	private int recentEvents = 50;

	/**
	 * Newest entries read from each durable audit stream of a program for a lease's events and for fencing health
	 * (bounds the work of one console request).
	 */
	private int scanDepth = 2000;

	/** Most recent lease losses (revokes, force-releases, expiries) shown in fencing health. */
	private int recentLosses = 20;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getRecentEvents() {
		return this.recentEvents;
	}

	public void setRecentEvents(int recentEvents) {
		this.recentEvents = positive("recent-events", recentEvents);
	}

	public int getScanDepth() {
		return this.scanDepth;
	}

	public void setScanDepth(int scanDepth) {
		this.scanDepth = positive("scan-depth", scanDepth);
	}

	public int getRecentLosses() {
		return this.recentLosses;
	}

	public void setRecentLosses(int recentLosses) {
		this.recentLosses = positive("recent-losses", recentLosses);
	}

	private static int positive(String name, int value) {
		if (value < 1 || value > 100_000) {
			throw new IllegalArgumentException("starintel.lease.admin.console." + name + " must be 1..100000");
		}
		return value;
	}

}
