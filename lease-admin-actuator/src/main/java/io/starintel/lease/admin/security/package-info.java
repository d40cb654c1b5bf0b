/**
 * Spring Security integration of the admin endpoint.
 *
 * <p>Not API: {@code DefaultAdminGrantResolver}, {@code EnvelopeRequestRejectedHandler},
 * {@code JsonSecurityErrorHandler}, {@code PropertiesAdminCredentials}, {@code SecurityContextAdminCaller} are
 * public only because another package of this project uses them (listed as {@code internal} in
 * {@code public-types/lease-admin-actuator.txt}; docs/ARCHITECTURE.md, "Public API"); they may change without
 * notice.
 */
@NullMarked
package io.starintel.lease.admin.security;

import org.jspecify.annotations.NullMarked;
