package io.starintel.lease.autoconfigure.couchdb;

import org.ektorp.http.StdHttpClient;

/** Customizes the builder of the auto-configured Ektorp HTTP client (TLS, proxy, ...) before it is built. */
@FunctionalInterface
public interface CouchDbHttpClientBuilderCustomizer {

	/** Customizes the builder. */
	void customize(StdHttpClient.Builder builder);

}
