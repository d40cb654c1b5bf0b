/**
 * Benchmarks of one acquire+release cycle (JMH and the interleaved harness): the lease store, the audited operations
 * path, the {@code @TargetLeased} job path, a bare fenced EVALSHA reference, a contract-complete bare v3 script and the
 * peers, each against its own Redis (optionally with a replica) in the same run; and the renewal cost of many held
 * leases ({@code scripts/bench.sh}, docs/benchmarks.md).
 */
@NullMarked
package io.starintel.lease.bench;

import org.jspecify.annotations.NullMarked;
