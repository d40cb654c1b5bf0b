/**
 * Internal support of the two HTTP adapters (the admin endpoint, {@code lease-admin-actuator}, and the worker API,
 * {@code lease-worker-http}): the one home of strict JSON parsing ({@link StrictJson}), the contract's error envelope
 * and lease JSON ({@link HttpEnvelope}), per-tenant admission control ({@link TenantAdmission}), correlation ids
 * ({@link CorrelationId}), deadline parsing ({@link RequestDeadline}) and the checks of configured credentials
 * ({@link CredentialCheck}).
 *
 * <p>Not API: may change without notice. Every type here is public only because the two adapter modules use it
 * (listed as {@code internal} in {@code public-types/lease-http-support.txt}; docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.http.internal;

import org.jspecify.annotations.NullMarked;
