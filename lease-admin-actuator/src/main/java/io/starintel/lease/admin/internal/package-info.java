/**
 * The implementation of the target-lease admin endpoint: the HTTP adapter, the operations over the audited store,
 * request parsing, authorization and admission, the envelopes, and the audit of every request (the request's audit
 * slot, the fallback filter, refusals before the store).
 *
 * <p>Not API: may change without notice. Its public types are public only because the auto-configuration, the
 * console or the security integration use them (listed as {@code internal} in
 * {@code public-types/lease-admin-actuator.txt}; docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.admin.internal;

import org.jspecify.annotations.NullMarked;
