/**
 * Leased jobs: the @TargetLeased aspect, the renewal scheduler and cancellation (the current lease they bind is
 * {@code context.LeaseContext}).
 *
 * <p>Not API: {@code FinalLeasedClassCheck}, {@code JobSettings}, {@code LeaseDurations},
 * {@code LeaseRenewalScheduler}, {@code LeasedJobsShutdown}, {@code ServiceInstanceIds}, {@code TargetLeaseAspect},
 * {@code TargetLeasedVerifier} are public only because another package of this project uses them (listed as
 * {@code internal} in {@code public-types/lease-autoconfigure.txt}; docs/ARCHITECTURE.md, "Public API"); they may
 * change without notice.
 */
@NullMarked
package io.starintel.lease.job;

import org.jspecify.annotations.NullMarked;
