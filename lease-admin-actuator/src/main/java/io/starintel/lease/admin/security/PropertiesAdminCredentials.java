package io.starintel.lease.admin.security;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.admin.Capabilities;
import io.starintel.lease.admin.CredentialKind;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.http.CredentialRules;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;

/**
 * The credentials of {@code starintel.lease.admin.credentials[...]}, validated at start-up: ids are bounded
 * identifiers, scopes are canonical, capabilities are known, administrative capabilities belong only to administrator
 * credentials (contract: "a distinct administrator credential", one a worker's credential can never be), and secrets
 * are given only as password-encoder hashes.
 */
public final class PropertiesAdminCredentials implements UserDetailsService {

	private final Map<String, LeaseAdminUser> users = new LinkedHashMap<>();

	/**
	 * Validates every credential, reporting all invalid ones at once as a {@link LeaseConfigurationException} (one
	 * clean start-up failure report; never a secret or hash in it).
	 */
	public PropertiesAdminCredentials(AdminProperties properties) {
		List<LeaseConfigurationException.Problem> problems = new ArrayList<>();
		for (AdminProperties.Credential credential : properties.getCredentials()) {
			String where = "starintel.lease.admin.credentials[" + credential.getCredentialId() + "]";
			try {
				LeaseAdminUser user = user(credential);
				if (this.users.putIfAbsent(user.getUsername(), user) != null) {
					problems.add(new LeaseConfigurationException.Problem(where, "duplicate credential-id"));
				}
			}
			catch (RuntimeException ex) {
				String message = String.valueOf(ex.getMessage());
				problems.add(new LeaseConfigurationException.Problem(where,
						message.startsWith(where + ": ") ? message.substring(where.length() + 2) : message));
			}
		}
		if (!problems.isEmpty()) {
			throw new LeaseConfigurationException(problems, "Correct each credential listed under "
					+ "starintel.lease.admin.credentials (see docs/admin.md: secret-hash is an encoded hash such as "
					+ "{bcrypt}..., capabilities targets:read|targets:force-release|targets:revoke, the last two only "
					+ "for kind=administrator, and at least one program).");
		}
	}

	private static LeaseAdminUser user(AdminProperties.Credential credential) {
		String where = "starintel.lease.admin.credentials[" + credential.getCredentialId() + "]";
		Identifiers.require("principal", credential.getPrincipal());
		Identifiers.require("credential-id", credential.getCredentialId());
		CredentialRules.secretHash(where + ".secret-hash", credential.getSecretHash());
		for (String capability : credential.getCapabilities()) {
			if (!Capabilities.ALL.contains(capability)) {
				throw new IllegalStateException(where + ": unknown capability");
			}
			if (Capabilities.isAdministrative(capability) && credential.getKind() != CredentialKind.ADMINISTRATOR) {
				throw new IllegalStateException(where + ": only administrator credentials may hold " + capability);
			}
		}
		if (credential.getPrograms().isEmpty()) {
			throw new IllegalStateException(where + ": programs must not be empty");
		}
		String tenant = null;
		Set<String> programs = new LinkedHashSet<>();
		for (String program : credential.getPrograms()) {
			ProgramScope scope = ProgramScope.of(credential.getTenant(), program);
			tenant = scope.tenantId();
			programs.add(scope.programId());
		}
		ProgramScope first = ProgramScope.of(tenant, programs.iterator().next());
		Set<String> actors = CredentialRules.actors(where + ".actors", first, credential.getActors());
		Set<String> targets = CredentialRules.targets(where + ".targets", first, credential.getTargets());
		AdminGrant grant = new AdminGrant(credential.getPrincipal(), credential.getCredentialId(),
				credential.getKind(), credential.getCapabilities(), tenant, programs, actors, targets);
		return new LeaseAdminUser(grant, credential.getSecretHash());
	}

	@Override
	public UserDetails loadUserByUsername(String username) {
		LeaseAdminUser user = this.users.get(username);
		if (user == null) {
			throw new UsernameNotFoundException("unknown credential");
		}
		return new LeaseAdminUser(user.grant(), user.getPassword());
	}

}
