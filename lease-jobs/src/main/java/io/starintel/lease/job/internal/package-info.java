/**
 * The machinery of leased jobs: the {@code @TargetLeased} advisor, its interceptor and plan, acquisition and
 * invocation, the renewal scheduler, the start-up checks and the shutdown of running jobs, wired by the
 * auto-configuration.
 *
 * <p>Not API: public only because other packages of this project use these types; they may change without notice
 * (docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.job.internal;

import org.jspecify.annotations.NullMarked;
