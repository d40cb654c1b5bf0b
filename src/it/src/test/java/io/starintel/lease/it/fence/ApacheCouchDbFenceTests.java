package io.starintel.lease.it.fence;

import io.starintel.lease.test.ServiceEnvironment;

/**
 * {@link CouchDbFenceTests} on Apache CouchDB 3.4.3 ({@code STARINTEL_COUCHDB_REAL_URL}, default 127.0.0.1:5986 with
 * {@code STARINTEL_COUCHDB_REAL_USER} / {@code _PASSWORD}, default admin/admin: what {@code scripts/services.sh}
 * starts from {@code ../shared/couchdb}).
 */
class ApacheCouchDbFenceTests extends CouchDbFenceTests {

	@Override
	CouchServer server() {
		return new CouchServer(ServiceEnvironment.env("STARINTEL_COUCHDB_REAL_URL", "http://127.0.0.1:5986"),
				ServiceEnvironment.env("STARINTEL_COUCHDB_REAL_USER", "admin"),
				ServiceEnvironment.env("STARINTEL_COUCHDB_REAL_PASSWORD", "admin"), true);
	}

}
