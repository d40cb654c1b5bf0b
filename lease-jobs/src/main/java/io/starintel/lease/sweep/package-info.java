/**
 * The expiry sweeper ({@link io.starintel.lease.sweep.ExpirySweeper}, built with its builder), its observer, and the
 * lease telemetry in Micrometer ({@link io.starintel.lease.sweep.LeaseMeters}); the meters themselves are
 * package-private.
 */
@NullMarked
package io.starintel.lease.sweep;

import org.jspecify.annotations.NullMarked;
