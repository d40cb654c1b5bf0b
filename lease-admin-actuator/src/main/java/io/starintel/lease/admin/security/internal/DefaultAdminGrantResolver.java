package io.starintel.lease.admin.security.internal;

import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;

import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.internal.AdminCapability;
import io.starintel.lease.admin.security.AdminGrantResolver;

/**
 * Default {@link AdminGrantResolver}: the scope comes from a {@link LeaseAdminUser} principal; capabilities come from
 * the authentication's authorities, so an application's authority mapping decides them. Other principals have no
 * lease scope.
 */
public final class DefaultAdminGrantResolver implements AdminGrantResolver {

	@Override
	public @Nullable AdminGrant resolve(Authentication authentication) {
		if (!(authentication.getPrincipal() instanceof LeaseAdminUser user)) {
			return null;
		}
		AdminGrant configured = user.grant();
		Set<String> capabilities = authentication.getAuthorities()
			.stream()
			.map(GrantedAuthority::getAuthority)
			.filter(AdminCapability.ALL::contains)
			.collect(Collectors.toSet());
		return new AdminGrant(configured.principalId(), configured.credentialId(), configured.kind(), capabilities,
				configured.tenantId(), configured.programs(), configured.actors(), configured.targets());
	}

}
