package io.starintel.lease.testing.couchdb;

/**
 * Details of a CouchDB (or compatible) server a test connects to: the starter's
 * {@link io.starintel.lease.autoconfigure.couchdb.CouchDbConnectionDetails} under the name this package has always
 * had (kept so that imports keep working), so a bean of it also configures the auto-configured
 * {@code CouchDbInstance}. Spring Boot has no CouchDB service connection: a {@code @ServiceConnection}
 * {@link io.starintel.lease.testing.testcontainers.CouchDbContainer} (or a generic container of a {@code couchdb}
 * image) and a Docker Compose service of a {@code couchdb} image supply this bean; the test auto-configuration also
 * exposes it as {@code starintel.lease.test.couchdb.url} (with the credentials when they need no URL escaping, else
 * without: Ektorp's {@code StdHttpClient.Builder.url(String)} does not decode them), {@code .base-url},
 * {@code .username} and {@code .password}, so that an application's own connector properties can point there.
 */
public interface CouchDbConnectionDetails extends io.starintel.lease.autoconfigure.couchdb.CouchDbConnectionDetails {

}
