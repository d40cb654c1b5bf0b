/**
 * The operator console: a browser page under {@code <actuator base path>/targetleases-console} over the admin
 * operations (same credentials, capabilities and scopes), with form login, CSRF-protected writes and a small read-only
 * API for per-lease audit events and fencing health from the durable audit streams.
 *
 * <p>Not API: {@code ConsoleAuditReader}, {@code ConsoleOriginFilter}, {@code TargetLeaseConsoleController} are
 * public only because another package of this project uses them (listed as {@code internal} in
 * {@code public-types/lease-admin-actuator.txt}; docs/ARCHITECTURE.md, "Public API"); they may change without
 * notice.
 */
@NullMarked
package io.starintel.lease.admin.console;

import org.jspecify.annotations.NullMarked;
