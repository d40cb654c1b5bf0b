package io.starintel.lease.testing.app;

import java.net.MalformedURLException;

import org.ektorp.CouchDbConnector;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.mockito.Mockito;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A user's application with one leased job. It builds its CouchDB connector from its own URL property
 * ({@code app.couchdb-url}), as applications do today; without one (the in-memory and Redis tests) the connector is a
 * Mockito mock: the fence refuses a stale write before any call reaches it.
 */
@SpringBootApplication
public class JobApplication {

	@Bean
	CouchDbConnector couchDbConnector(Environment environment) throws MalformedURLException {
		String url = environment.getProperty("app.couchdb-url");
		if (url == null) {
			return Mockito.mock(CouchDbConnector.class);
		}
		StdHttpClient client = (StdHttpClient) new StdHttpClient.Builder().url(url).caching(false).build();
		StdCouchDbConnector connector = new StdCouchDbConnector("scan-results", new StdCouchDbInstance(client));
		connector.createDatabaseIfNotExists();
		return connector;
	}

}
