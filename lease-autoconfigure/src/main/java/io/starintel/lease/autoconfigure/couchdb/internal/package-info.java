/**
 * Start-up failures of the CouchDB wiring translated into one report naming the property to fix; public only because
 * the CouchDB and fence auto-configurations both use it (not API).
 */
@NullMarked
package io.starintel.lease.autoconfigure.couchdb.internal;

import org.jspecify.annotations.NullMarked;
