/**
 * Where a test's CouchDB is: {@link io.starintel.lease.testing.couchdb.CouchDbConnectionDetails}, supplied by a
 * {@code @ServiceConnection} CouchDB container or a Docker Compose {@code couchdb} service, and readable as the
 * properties {@code starintel.lease.test.couchdb.*}.
 */
@NullMarked
package io.starintel.lease.testing.couchdb;

import org.jspecify.annotations.NullMarked;
