/**
 * Testing {@code @TargetLeased} jobs: {@link io.starintel.lease.testing.AutoConfigureLeaseTest} (the in-memory store
 * when there is no Redis, the real store with a Redis/Valkey service connection), the
 * {@link io.starintel.lease.testing.TargetLeaseTester} that drives a job's lease from outside (revoke, expire, take
 * over, make the backend unreachable, await cancellation) and the
 * {@link io.starintel.lease.testing.CapturedAuditEvents}. Assertions: {@code io.starintel.lease.testing.assertj}.
 * See docs/testing.md.
 */
@NullMarked
package io.starintel.lease.testing;

import org.jspecify.annotations.NullMarked;
