/**
 * The implementation of the worker HTTP API: the controller that dispatches the subtree under {@code /lease/v1}, the
 * credentials and HTTP Basic authentication, request parsing, the operations over the lease service, the envelopes
 * and the audit of refusals taken before the store.
 *
 * <p>Not API: may change without notice. {@code WorkerController} and {@code WorkerCredentials} are public only
 * because the auto-configuration (and the integration suites) use them (listed as {@code internal} in
 * {@code public-types/lease-worker-http.txt}; docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.worker.internal;

import org.jspecify.annotations.NullMarked;
