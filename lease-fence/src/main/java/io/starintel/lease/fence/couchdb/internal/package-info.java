/**
 * Not API: may change without notice. The server-side half of the CouchDB fence: the design document
 * {@code _design/starintel_fence} ({@code FenceDesignDocument}) and the store of each fenced document's durable
 * mark in Redis ({@code DocumentMarkStore}), both built by the auto-configuration; docs/fencing.md, "CouchDB".
 */
@NullMarked
package io.starintel.lease.fence.couchdb.internal;

import org.jspecify.annotations.NullMarked;
