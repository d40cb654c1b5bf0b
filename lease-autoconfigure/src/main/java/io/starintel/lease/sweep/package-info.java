/**
 * The expiry sweeper: a bounded, deadline-limited tick that ends expired leases promptly through the store's
 * {@code sweepExpired} operation, and its Micrometer meters (plain Java; Micrometer only in {@link
 * io.starintel.lease.sweep.SweepMetrics}).
 *
 * <p>Not API: {@code ExpirySweeper}, {@code LeaseLifecycleMetrics}, {@code SweepMetrics} are public only because
 * another package of this project uses them (listed as {@code internal} in
 * {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public API"); they may change without notice.
 */
@NullMarked
package io.starintel.lease.sweep;

import org.jspecify.annotations.NullMarked;
