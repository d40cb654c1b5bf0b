/**
 * Spring Security integration of the admin endpoint.
 */
@NullMarked
package io.starintel.lease.admin.security;

import org.jspecify.annotations.NullMarked;
