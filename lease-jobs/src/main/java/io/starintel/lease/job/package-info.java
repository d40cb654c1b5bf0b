/**
 * Leased jobs, what an application touches: the {@code @TargetLeased} annotation and its policies, target
 * resolution, the owner provider, the acquisition exceptions and the lease-lost event (the current lease they bind is
 * {@code context.LeaseContext}; the machinery is in {@code job.internal}).
 */
@NullMarked
package io.starintel.lease.job;

import org.jspecify.annotations.NullMarked;
