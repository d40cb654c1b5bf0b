/**
 * The target-lease admin endpoint: operations, envelopes, admission control.
 *
 * <p>Not API: {@code AdminAuditFilter}, {@code AdminAuditor}, {@code AdminCaller}, {@code AdminGrant},
 * {@code AdminRequestAudit}, {@code AdminResponse}, {@code Capabilities}, {@code CredentialKind}, {@code Envelopes},
 * {@code TargetLeaseAdminController}, {@code TargetLeaseAdminOperations}, {@code TraceGuardFilter} are public only
 * because another package of this project uses them (listed as {@code internal} in
 * {@code public-types/lease-admin-actuator.txt}; docs/ARCHITECTURE.md, "Public API"); they may change without
 * notice.
 */
@NullMarked
package io.starintel.lease.admin;

import org.jspecify.annotations.NullMarked;
