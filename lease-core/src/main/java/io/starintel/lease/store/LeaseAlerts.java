package io.starintel.lease.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives {@link LeaseAlert}s. Stores always log an alert; an application adds metrics or audit by supplying its
 * own implementation (the auto-configuration wires a Micrometer counter and the audit sink).
 */
@FunctionalInterface
public interface LeaseAlerts {

	/** Logs at ERROR: the alert never carries a raw key or record content, so it is safe to log. */
	LeaseAlerts LOG = new LeaseAlerts() {

		private final Logger logger = LoggerFactory.getLogger(LeaseAlerts.class);

		@Override
		public void raise(LeaseAlert alert) {
			this.logger.error("Lease store alert: reason={} tenant={} program={} operation={} reference={}",
					alert.reason().wireName(), alert.scope().tenantId(), alert.scope().programId(),
					alert.operation(), alert.reference());
		}

	};

	/** Handles one alert; must not throw. */
	void raise(LeaseAlert alert);

}
