package io.starintel.lease.job;

/** Receives {@link LeaseLostEvent}s; the auto-configuration forwards them to the application event publisher. */
@FunctionalInterface
public interface LeaseLostListener {

	/** Handles one event; must not throw (exceptions are logged and ignored). */
	void leaseLost(LeaseLostEvent event);

}
