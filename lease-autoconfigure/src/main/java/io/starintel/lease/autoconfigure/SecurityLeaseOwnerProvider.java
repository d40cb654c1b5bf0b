package io.starintel.lease.autoconfigure;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.job.LeaseOwnerProvider;

/**
 * Owner = the authenticated Spring Security principal's name when there is one (not anonymous), else the configured
 * service principal. Contract: the owner is the authenticated principal or internal security context.
 */
final class SecurityLeaseOwnerProvider implements LeaseOwnerProvider {

	private final LeaseOwnerProvider fallback;

	SecurityLeaseOwnerProvider(LeaseOwnerProvider fallback) {
		this.fallback = fallback;
	}

	@Override
	public LeaseOwner currentOwner() {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		LeaseOwner service = this.fallback.currentOwner();
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return service;
		}
		return new LeaseOwner(authentication.getName(), service.clientId(), service.credentialId(),
				service.serviceInstanceId());
	}

}
