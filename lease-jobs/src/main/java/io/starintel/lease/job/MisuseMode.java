package io.starintel.lease.job;

/** What start-up does with a {@link TargetLeased} method that the aspect would never intercept. */
public enum MisuseMode {

	/** Fail start-up, naming every such bean and method (default). */
	FAIL,

	/** Log one WARN per bean method and start. */
	WARN

}
