/**
 * Internal support of the two HTTP adapters (the admin endpoint, {@code lease-admin-actuator}, and the worker API,
 * {@code lease-worker-http}): the one home of strict JSON parsing ({@link io.starintel.lease.http.StrictJson}), the
 * contract's error envelope and lease JSON ({@link io.starintel.lease.http.HttpEnvelopes}), per-tenant admission
 * control ({@link io.starintel.lease.http.TenantAdmission}), correlation ids
 * ({@link io.starintel.lease.http.CorrelationIds}), deadline parsing ({@link io.starintel.lease.http.Deadlines}) and
 * the checks of configured credentials ({@link io.starintel.lease.http.CredentialRules}). Public only because two
 * modules use it; not an API of the library (no compatibility promise).
 *
 * <p>Not API: {@code CorrelationIds}, {@code CredentialRules}, {@code Deadlines}, {@code HttpEnvelopes},
 * {@code StrictJson}, {@code TenantAdmission} are public only because another package of this project uses them
 * (listed as {@code internal} in {@code public-types/lease-http-support.txt}; docs/ARCHITECTURE.md, "Public API");
 * they may change without notice.
 */
@NullMarked
package io.starintel.lease.http;

import org.jspecify.annotations.NullMarked;
