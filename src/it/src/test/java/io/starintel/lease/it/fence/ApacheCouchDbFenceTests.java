package io.starintel.lease.it.fence;

import io.starintel.lease.test.TestServers;

/**
 * {@link CouchDbFenceTests} on Apache CouchDB 3.4.3: its container when the run uses containers (lease-test-support's
 * {@code TestServers}; admin/admin), else {@code STARINTEL_COUCHDB_REAL_URL}, default 127.0.0.1:5986 with
 * {@code STARINTEL_COUCHDB_REAL_USER} / {@code _PASSWORD}, default admin/admin: what {@code scripts/services.sh}
 * starts from {@code ../shared/couchdb}.
 */
class ApacheCouchDbFenceTests extends CouchDbFenceTests {

	@Override
	CouchServer server() {
		TestServers.CouchDb couchDb = TestServers.apacheCouchDb();
		return new CouchServer(couchDb.url(), couchDb.user(), couchDb.password(), true);
	}

}
