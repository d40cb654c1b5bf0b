/**
 * The expiry sweeper: a bounded, deadline-limited tick that ends expired leases promptly through the store's
 * {@code sweepExpired} operation, and its Micrometer meters (plain Java; Micrometer only in {@link
 * io.starintel.lease.sweep.SweepMetrics}).
 */
@NullMarked
package io.starintel.lease.sweep;

import org.jspecify.annotations.NullMarked;
