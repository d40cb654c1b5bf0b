/**
 * The conformance kits every {@link io.starintel.lease.store.LeaseStore} must pass: extend
 * {@link io.starintel.lease.test.conformance.LeaseStoreConformanceKit} (and
 * {@link io.starintel.lease.test.conformance.LeaseStoreSweepConformanceKit} for the expiry sweep) and supply the
 * store through the hooks.
 */
@NullMarked
package io.starintel.lease.test.conformance;

import org.jspecify.annotations.NullMarked;
