package io.starintel.lease.it.fence;

import io.starintel.lease.test.TestServers;

/**
 * {@link CouchDbFenceTests} on pouchdb-server ({@code STARINTEL_COUCHDB_URL}, default 127.0.0.1:5984): always the local
 * server of {@code scripts/services.sh}, also when the run uses containers (there is no pouchdb-server image).
 */
class PouchDbServerFenceTests extends CouchDbFenceTests {

	@Override
	CouchServer server() {
		return new CouchServer(TestServers.pouchDbUrl(), "", "", false);
	}

}
