package io.starintel.lease.admin.security.internal;

import java.util.HashMap;
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
import io.starintel.lease.core.internal.PropertyProblems;
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

	/** The properties' prefix; each problem names {@code credentials[i].<key>} under it. */
	private static final String PREFIX = "starintel.lease.admin.";

	private static final String ACTION = "Correct each credential listed under starintel.lease.admin.credentials (see "
			+ "docs/admin.md: secret-hash is an encoded hash such as {bcrypt}..., capabilities "
			+ "targets:read|targets:force-release|targets:revoke, the last two only for kind=administrator, a unique "
			+ "credential-id, a tenant and at least one program).";

	private final Map<String, LeaseAdminUser> users = new LinkedHashMap<>();

	/**
	 * Validates every credential, reporting every problem of every credential at once as a
	 * {@link LeaseConfigurationException}, each naming its property with the credential's list index
	 * ({@code starintel.lease.admin.credentials[1].secret-hash}): one clean start-up failure report, never a secret or
	 * hash in it.
	 */
	public PropertiesAdminCredentials(AdminProperties properties) {
		PropertyProblems problems = new PropertyProblems(PREFIX);
		Map<String, Integer> indexes = new HashMap<>();
		List<Credential> credentials = properties.credentials();
		for (int i = 0; i < credentials.size(); i++) {
			String key = "credentials[" + i + "].";
			int before = problems.problems().size();
			LeaseAdminUser user = user(problems, key, credentials.get(i));
			String credentialId = credentials.get(i).credentialId();
			CredentialCheck.uniqueId(problems, indexes, i, credentialId);
			if (user != null && problems.problems().size() == before) {
				this.users.put(user.getUsername(), user);
			}
		}
		problems.throwIfAny(ACTION);
	}

	/**
	 * Checks one credential, recording each of its problems under {@code key} ({@code credentials[i].}).
	 * @return the user, or {@code null} when the credential has a problem
	 */
	private static @Nullable LeaseAdminUser user(PropertyProblems problems, String key, Credential credential) {
		int before = problems.problems().size();
		String principal = CredentialCheck.identifier(problems, key + "principal", credential.principal());
		String credentialId = CredentialCheck.identifier(problems, key + "credential-id", credential.credentialId());
		String secretHash = CredentialCheck.secretHash(problems, key + "secret-hash", credential.secretHash());
		CredentialKind kind = kind(problems, key + "kind", credential.kind());
		Set<String> capabilities = credential.capabilitiesOr(Set.of());
		for (String capability : capabilities) {
			if (!AdminCapability.ALL.contains(capability)) {
				problems.add(key + "capabilities",
						"must each be targets:read, targets:force-release or targets:revoke, not " + capability);
			}
			else if (AdminCapability.isAdministrative(capability) && kind != null
					&& kind != CredentialKind.ADMINISTRATOR) {
				problems.add(key + "capabilities", "must not include " + capability + " unless kind is administrator");
			}
		}
		String tenant = CredentialCheck.tenant(problems, key + "tenant", credential.tenant());
		Set<String> programs = new LinkedHashSet<>();
		if (credential.allPrograms().isEmpty()) {
			problems.add(key + "programs", "must name at least one program");
		}
		if (credential.program() != null) {
			add(programs, CredentialCheck.program(problems, key + "program", credential.program()));
		}
		for (String program : credential.programs()) {
			add(programs, CredentialCheck.program(problems, key + "programs", program));
		}
		Set<String> actors = CredentialCheck.actors(problems, key + "actors", credential.actors());
		Set<String> targets = CredentialCheck.targets(problems, key + "targets", credential.targets());
		if (problems.problems().size() != before) {
			return null;
		}
		AdminGrant grant = new AdminGrant(principal, credentialId, kind, capabilities, tenant, programs, actors,
				targets);
		return new LeaseAdminUser(grant, secretHash);
	}

	private static void add(Set<String> programs, @Nullable String program) {
		if (program != null) {
			programs.add(program);
		}
	}

	/** The credential's kind: operator when not set; {@code null} (a problem recorded) when not a kind. */
	private static @Nullable CredentialKind kind(PropertyProblems problems, String key, @Nullable String kind) {
		if (kind == null || kind.isBlank()) {
			return CredentialKind.OPERATOR;
		}
		try {
			return CredentialKind.valueOf(kind.trim().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			problems.add(key, "must be worker, operator or administrator");
			return null;
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
