/**
 * CouchDB fenced writes through Ektorp: {@link io.starintel.lease.fence.couchdb.FencedDocuments} (the fenced writes
 * with typed results), {@link io.starintel.lease.fence.couchdb.FencedCouchDbConnector} (Ektorp's
 * {@code CouchDbConnector} over it) and {@link io.starintel.lease.fence.couchdb.FencedCouchDbReader} (fenced reads).
 * The design document and the durable marks are in {@code fence.couchdb.internal}, which is not API.
 */
@NullMarked
package io.starintel.lease.fence.couchdb;

import org.jspecify.annotations.NullMarked;
