package io.starintel.lease.autoconfigure.fence;

import org.ektorp.CouchDbConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;

/**
 * Names, at start-up, the {@link CouchDbConnector} beans that {@link FenceCouchDbAutoConfiguration} left unfenced:
 * it wraps the application's single (or primary) connector, so with several and none primary it configures no
 * {@link FencedCouchDbConnector} and installs no fence design document. A WARN line then says so, so that no database
 * is left unfenced silently; declaring a {@code FencedCouchDbConnector} bean (one per database) silences it.
 */
final class UnfencedCouchDbConnectors implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(UnfencedCouchDbConnectors.class);

	private final ListableBeanFactory beans;

	UnfencedCouchDbConnectors(ListableBeanFactory beans) {
		this.beans = beans;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.beans.getBeanNamesForType(FencedCouchDbConnector.class, false, false).length > 0) {
			return;
		}
		String[] connectors = this.beans.getBeanNamesForType(CouchDbConnector.class, false, false);
		if (connectors.length > 1) {
			logger.warn("{} CouchDbConnector beans ({}) and none primary: no fenced connector is auto-configured and "
					+ "no fence design document installed; declare a FencedCouchDbConnector for each database "
					+ "(docs/fencing.md, \"Several databases\")", connectors.length, String.join(", ", connectors));
		}
	}

}
