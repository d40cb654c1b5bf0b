/**
 * CouchDB fenced writes through Ektorp: a {@link org.ektorp.CouchDbConnector} decorator that stamps the accepted
 * fence into documents and writes conditionally on {@code _rev}, and the design document that makes the server
 * reject lower-token writes.
 *
 * <p>Not API: {@code CouchDbFenceMarks}, {@code FenceDesignDocument} are public only because another package of this
 * project uses them (listed as {@code internal} in {@code public-types/lease-autoconfigure.txt};
 * docs/ARCHITECTURE.md, "Public API"); they may change without notice.
 */
@NullMarked
package io.starintel.lease.fence.couchdb;

import org.jspecify.annotations.NullMarked;
