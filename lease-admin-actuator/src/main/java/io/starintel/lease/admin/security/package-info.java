/**
 * Spring Security integration of the admin endpoint: {@link AdminGrantResolver} maps an authentication to the
 * caller's grant (declare your own bean for another identity provider). The default resolver, the configured
 * credentials and the JSON error handlers are in {@code io.starintel.lease.admin.security.internal}.
 */
@NullMarked
package io.starintel.lease.admin.security;

import org.jspecify.annotations.NullMarked;
