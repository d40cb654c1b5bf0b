/**
 * CouchDB fenced writes through Ektorp: a {@link org.ektorp.CouchDbConnector} decorator that stamps the accepted
 * fence into documents and writes conditionally on {@code _rev}, and the design document that makes the server
 * reject lower-token writes.
 */
@NullMarked
package io.starintel.lease.fence.couchdb;

import org.jspecify.annotations.NullMarked;
