/**
 * The conformance suites every {@link io.starintel.lease.store.LeaseStore} must pass, one per contract area
 * (acquire/release, renewal, expiry, idempotency, list and admin, attached keys, fencing counter and commit, races;
 * the expiry sweep; active-lease limits). A provider test extends
 * {@link io.starintel.lease.test.conformance.LeaseStoreConformanceKit} (and
 * {@link io.starintel.lease.test.conformance.LeaseStoreSweepConformanceKit}), which nest every suite, and supplies the
 * store through the hooks ({@link io.starintel.lease.test.conformance.LeaseStoreUnderTest},
 * {@link io.starintel.lease.test.conformance.SweepStoreUnderTest}); or implements a hooks interface and nests the
 * suites it wants. Each suite works on its own fixture ({@link io.starintel.lease.test.conformance.LeaseStoreFixture},
 * {@link io.starintel.lease.test.conformance.SweepFixture}), built per test by composition.
 */
@NullMarked
package io.starintel.lease.test.conformance;

import org.jspecify.annotations.NullMarked;
