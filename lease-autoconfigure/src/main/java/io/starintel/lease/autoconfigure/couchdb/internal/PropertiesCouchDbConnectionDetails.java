package io.starintel.lease.autoconfigure.couchdb.internal;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.autoconfigure.couchdb.CouchDbConnectionDetails;
import io.starintel.lease.autoconfigure.couchdb.LeaseCouchDbProperties;

/**
 * {@link CouchDbConnectionDetails} from {@code starintel.lease.couchdb.*} (public only because the start-up failure
 * report tells them from an application's own; not API).
 */
public final class PropertiesCouchDbConnectionDetails implements CouchDbConnectionDetails {

	private final LeaseCouchDbProperties properties;

	public PropertiesCouchDbConnectionDetails(LeaseCouchDbProperties properties) {
		this.properties = properties;
	}

	@Override
	public String url() {
		String url = this.properties.url();
		return (url != null) ? url : "http://localhost:5984";
	}

	@Override
	public @Nullable String username() {
		return this.properties.username();
	}

	@Override
	public @Nullable String password() {
		return this.properties.password();
	}

}
