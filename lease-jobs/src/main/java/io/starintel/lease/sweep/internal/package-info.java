/**
 * The expiry sweeper: a bounded, deadline-limited tick that ends expired leases promptly through the store's
 * {@code sweepExpired} operation, and the Micrometer meters of sweeps and lease lifecycles (plain Java; Micrometer
 * only in {@link io.starintel.lease.sweep.internal.SweepMetrics} and
 * {@link io.starintel.lease.sweep.internal.LeaseLifecycleMetrics}).
 *
 * <p>Not API: public only because other packages of this project use these types; they may change without notice
 * (docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.sweep.internal;

import org.jspecify.annotations.NullMarked;
