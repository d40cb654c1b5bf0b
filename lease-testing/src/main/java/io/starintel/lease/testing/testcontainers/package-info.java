/**
 * Testcontainers support for lease tests: {@link io.starintel.lease.testing.testcontainers.ValkeyContainer} and
 * {@link io.starintel.lease.testing.testcontainers.CouchDbContainer}, both usable with {@code @ServiceConnection}
 * (Valkey yields Boot's Redis connection details, CouchDB this module's
 * {@link io.starintel.lease.testing.couchdb.CouchDbConnectionDetails}).
 */
@NullMarked
package io.starintel.lease.testing.testcontainers;

import org.jspecify.annotations.NullMarked;
