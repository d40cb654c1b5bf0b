package io.starintel.lease.admin.security.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.security.AdminGrantResolver;

/**
 * The caller from Spring Security's context, mapped by an {@link AdminGrantResolver}; anonymous or missing
 * authentication has no grant (401).
 */
public final class SecurityContextAdminCaller implements AdminCaller {

	private final AdminGrantResolver resolver;

	public SecurityContextAdminCaller(AdminGrantResolver resolver) {
		this.resolver = resolver;
	}

	@Override
	public @Nullable AdminGrant current() {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return null;
		}
		return this.resolver.resolve(authentication);
	}

}
