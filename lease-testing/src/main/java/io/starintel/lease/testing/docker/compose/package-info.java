/**
 * Spring Boot Docker Compose support for lease tests and local runs: CouchDB services (images {@code couchdb},
 * {@code apache/couchdb}) supply {@link io.starintel.lease.testing.couchdb.CouchDbConnectionDetails}, Valkey services
 * (images {@code valkey}, {@code valkey/valkey}) Boot's Redis connection details.
 */
@NullMarked
package io.starintel.lease.testing.docker.compose;

import org.jspecify.annotations.NullMarked;
