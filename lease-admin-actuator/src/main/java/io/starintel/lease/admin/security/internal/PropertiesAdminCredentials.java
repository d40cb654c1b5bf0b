package io.starintel.lease.admin.security.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.admin.CredentialKind;
import io.starintel.lease.admin.internal.AdminCapability;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.http.Credential;
import io.starintel.lease.http.internal.CredentialCheck;
import org.jspecify.annotations.Nullable;
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
		for (Credential credential : properties.credentials()) {
			String where = "starintel.lease.admin.credentials[" + credential.credentialId() + "]";
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

	private static LeaseAdminUser user(Credential credential) {
		String where = "starintel.lease.admin.credentials[" + credential.credentialId() + "]";
		String principal = Identifiers.require("principal", credential.principal());
		String credentialId = Identifiers.require("credential-id", credential.credentialId());
		String secretHash = CredentialCheck.secretHash(where + ".secret-hash", credential.secretHash());
		CredentialKind kind = kind(where, credential.kind());
		Set<String> capabilities = credential.capabilitiesOr(Set.of());
		for (String capability : capabilities) {
			if (!AdminCapability.ALL.contains(capability)) {
				throw new IllegalStateException(where + ": unknown capability");
			}
			if (AdminCapability.isAdministrative(capability) && kind != CredentialKind.ADMINISTRATOR) {
				throw new IllegalStateException(where + ": only administrator credentials may hold " + capability);
			}
		}
		if (credential.allPrograms().isEmpty()) {
			throw new IllegalStateException(where + ": programs must not be empty");
		}
		String tenant = null;
		Set<String> programs = new LinkedHashSet<>();
		for (String program : credential.allPrograms()) {
			ProgramScope scope = ProgramScope.of(credential.tenant(), program);
			tenant = scope.tenantId();
			programs.add(scope.programId());
		}
		ProgramScope first = ProgramScope.of(tenant, programs.iterator().next());
		Set<String> actors = CredentialCheck.actors(where + ".actors", first, credential.actors());
		Set<String> targets = CredentialCheck.targets(where + ".targets", first, credential.targets());
		AdminGrant grant = new AdminGrant(principal, credentialId, kind, capabilities, tenant, programs, actors,
				targets);
		return new LeaseAdminUser(grant, secretHash);
	}

	/** The credential's kind: operator when not set. */
	private static CredentialKind kind(String where, @Nullable String kind) {
		if (kind == null || kind.isBlank()) {
			return CredentialKind.OPERATOR;
		}
		try {
			return CredentialKind.valueOf(kind.trim().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(where + ": kind must be worker, operator or administrator");
		}
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
