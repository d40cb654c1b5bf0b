/**
 * The implementation of the operator console: the controller, its pages, the reads of the durable audit streams and
 * their JSON views, and the same-origin check of its writes.
 *
 * <p>Not API: may change without notice. Its public types are public only because the auto-configuration uses them
 * (listed as {@code internal} in {@code public-types/lease-admin-actuator.txt}; docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.admin.console.internal;

import org.jspecify.annotations.NullMarked;
