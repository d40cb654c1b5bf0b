/**
 * JMH benchmarks of one acquire+release cycle: the lease store, the audited operations path, a bare fenced EVALSHA
 * reference and the fenced peers, all against the same Redis in the same run ({@code scripts/bench.sh}).
 */
@NullMarked
package io.starintel.lease.bench;

import org.jspecify.annotations.NullMarked;
