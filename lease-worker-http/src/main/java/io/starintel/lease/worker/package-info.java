/**
 * The worker HTTP API: the contract's lease protocol (acquire-if-free, renew, release, inspect own lease, resolve by
 * request id, authorize-commit) for actors that are not JVMs, under {@code /lease/v1}. This package holds its settings
 * ({@link WorkerHttpProperties}); the implementation is in {@code io.starintel.lease.worker.internal}.
 */
@NullMarked
package io.starintel.lease.worker;

import org.jspecify.annotations.NullMarked;
