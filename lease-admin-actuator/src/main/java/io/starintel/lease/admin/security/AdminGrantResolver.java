package io.starintel.lease.admin.security;

import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;

import io.starintel.lease.admin.AdminGrant;

/**
 * Maps an authenticated Spring Security {@link Authentication} to the caller's {@link AdminGrant}. Supply your own
 * bean to plug in another identity provider (JWT claims, LDAP groups); {@code null} means "no lease scope" (403).
 */
@FunctionalInterface
public interface AdminGrantResolver {

	/** The grant of an authenticated caller, or {@code null} when it has none. */
	@Nullable AdminGrant resolve(Authentication authentication);

}
