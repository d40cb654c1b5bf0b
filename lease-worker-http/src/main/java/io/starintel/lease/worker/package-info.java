/**
 * The worker HTTP API: the contract's lease protocol (acquire-if-free, renew, release, inspect own lease, resolve by
 * request id, authorize-commit) for actors that are not JVMs, under {@code /lease/v1}.
 *
 * <p>Not API: {@code WorkerController}, {@code WorkerCredentials} are public only because another package of this
 * project uses them (listed as {@code internal} in {@code public-types/lease-worker-http.txt}; docs/ARCHITECTURE.md,
 * "Public API"); they may change without notice.
 */
@NullMarked
package io.starintel.lease.worker;

import org.jspecify.annotations.NullMarked;
