package io.starintel.lease.admin.security.internal;

import java.util.List;

import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.userdetails.User;

import io.starintel.lease.admin.AdminGrant;

/**
 * A configured admin credential as a Spring Security user: user name = credential id, password = the secret's hash,
 * authorities = capabilities, plus the {@link AdminGrant} (principal, kind, scope).
 */
final class LeaseAdminUser extends User {

	private final AdminGrant grant;

	public LeaseAdminUser(AdminGrant grant, String secretHash) {
		super(grant.credentialId(), secretHash,
				grant.capabilities().stream().sorted().map(SimpleGrantedAuthority::new).toList());
		this.grant = grant;
	}

	/** The grant of this credential. */
	public AdminGrant grant() {
		return this.grant;
	}

	/** Capabilities as authority names. */
	public List<String> capabilityNames() {
		return getAuthorities().stream().map(a -> a.getAuthority()).toList();
	}

}
