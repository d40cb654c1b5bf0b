/**
 * Auto-configuration of the CouchDB connection (Ektorp) from {@code starintel.lease.couchdb.*} or a
 * {@link io.starintel.lease.autoconfigure.couchdb.CouchDbConnectionDetails} bean.
 */
@NullMarked
package io.starintel.lease.autoconfigure.couchdb;

import org.jspecify.annotations.NullMarked;
