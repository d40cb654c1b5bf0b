/**
 * Leased jobs: the @TargetLeased aspect, the renewal scheduler, LeaseContext and cancellation.
 */
@NullMarked
package io.starintel.lease.job;

import org.jspecify.annotations.NullMarked;
