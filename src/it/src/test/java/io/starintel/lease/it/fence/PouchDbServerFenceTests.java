package io.starintel.lease.it.fence;

import io.starintel.lease.test.ServiceEnvironment;

/** {@link CouchDbFenceTests} on pouchdb-server ({@code STARINTEL_COUCHDB_URL}, default 127.0.0.1:5984). */
class PouchDbServerFenceTests extends CouchDbFenceTests {

	@Override
	CouchServer server() {
		return new CouchServer(ServiceEnvironment.env("STARINTEL_COUCHDB_URL", "http://127.0.0.1:5984"), "", "",
				false);
	}

}
