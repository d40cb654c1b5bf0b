/**
 * The operator console: a browser page under {@code <actuator base path>/targetleases-console} over the admin
 * operations (same credentials, capabilities and scopes), with form login, CSRF-protected writes and a small read-only
 * API for per-lease audit events and fencing health from the durable audit streams. This package holds its settings
 * ({@link ConsoleProperties}); the implementation is in {@code io.starintel.lease.admin.console.internal}.
 */
@NullMarked
package io.starintel.lease.admin.console;

import org.jspecify.annotations.NullMarked;
