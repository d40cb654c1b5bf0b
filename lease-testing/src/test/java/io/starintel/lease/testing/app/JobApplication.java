package io.starintel.lease.testing.app;

import org.ektorp.CouchDbConnector;
import org.mockito.Mockito;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * A user's application with one leased job. Its CouchDB connector is a Mockito mock unless a test supplies a real
 * one: the fence refuses a stale write before any call reaches it.
 */
@SpringBootApplication
public class JobApplication {

	@Bean
	@ConditionalOnMissingBean
	CouchDbConnector couchDbConnector() {
		return Mockito.mock(CouchDbConnector.class);
	}

}
