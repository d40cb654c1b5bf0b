package io.starintel.lease.autoconfigure.couchdb;

import org.jspecify.annotations.Nullable;

/** {@link CouchDbConnectionDetails} from {@code starintel.lease.couchdb.*}. */
final class PropertiesCouchDbConnectionDetails implements CouchDbConnectionDetails {

	private final LeaseCouchDbProperties properties;

	PropertiesCouchDbConnectionDetails(LeaseCouchDbProperties properties) {
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
