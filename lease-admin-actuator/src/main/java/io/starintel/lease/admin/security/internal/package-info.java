/**
 * The admin endpoint's Spring Security pieces: the configured credentials as users, the default grant resolver, the
 * caller from the security context, and the JSON envelopes of security and firewall refusals.
 *
 * <p>Not API: may change without notice. Its public types are public only because the auto-configuration uses them
 * (listed as {@code internal} in {@code public-types/lease-admin-actuator.txt}; docs/ARCHITECTURE.md, "Public API").
 */
@NullMarked
package io.starintel.lease.admin.security.internal;

import org.jspecify.annotations.NullMarked;
