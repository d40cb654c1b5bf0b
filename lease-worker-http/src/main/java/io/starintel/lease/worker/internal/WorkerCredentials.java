package io.starintel.lease.worker.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;

import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.http.Credential;
import io.starintel.lease.http.internal.CredentialCheck;

/**
 * The configured worker credentials and HTTP Basic authentication against them (user name = credential id,
 * password = secret, checked against a password-encoder hash).
 *
 * <p>Invalid configuration fails start-up with one {@link LeaseConfigurationException} listing every problem of every
 * credential, each naming its property with the credential's list index
 * ({@code starintel.lease.worker-http.credentials[1].kind}): a kind other than {@code worker}, an administrative
 * capability on a worker, a plain or {@code {noop}} secret, a duplicate credential id, or an invalid id, tenant,
 * program, actor or target. The starter's failure analyzer prints it as one "APPLICATION FAILED TO START" report. No
 * secret is ever kept in clear, logged or reported.
 */
public final class WorkerCredentials {

	/** The properties' prefix; each problem names {@code credentials[i].<key>} under it. */
	private static final String PREFIX = "starintel.lease.worker-http.";

	private static final Set<String> KNOWN_CAPABILITIES = Set.of(WorkerCaller.LEASE_CAPABILITY, "targets:read");

	private static final String ACTION = "Correct each credential listed under "
			+ "starintel.lease.worker-http.credentials (see docs/worker-api.md: kind worker, capabilities targets:lease "
			+ "or targets:read, secret-hash an encoded hash such as {bcrypt}..., a unique credential-id, a tenant and "
			+ "exactly one program; administrators use the admin endpoint's credentials).";

	private static final int MAX_HEADER = 1024;

	private final Map<String, Entry> byCredentialId;

	private final PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();

	private final String dummyHash;

	private record Entry(WorkerCaller caller, String secretHash) {
	}

	/**
	 * Validates and indexes the configured credentials.
	 * @throws LeaseConfigurationException listing every problem of every credential
	 */
	public WorkerCredentials(List<Credential> credentials) {
		PropertyProblems problems = new PropertyProblems(PREFIX);
		Map<String, Entry> entries = new HashMap<>();
		Map<String, Integer> indexes = new HashMap<>();
		for (int i = 0; i < credentials.size(); i++) {
			String key = "credentials[" + i + "].";
			int before = problems.problems().size();
			Entry entry = entry(problems, key, credentials.get(i));
			String credentialId = credentials.get(i).credentialId();
			CredentialCheck.uniqueId(problems, indexes, i, credentialId);
			if (problems.problems().size() == before) {
				entries.put(credentialId, entry);
			}
		}
		problems.throwIfAny(ACTION);
		this.byCredentialId = Map.copyOf(entries);
		this.dummyHash = this.encoder.encode("starintel-worker-dummy-secret");
	}

	/**
	 * Checks one credential, recording each of its problems under {@code key} ({@code credentials[i].}).
	 * @return the entry, or {@code null} when the credential has a problem
	 */
	private static @Nullable Entry entry(PropertyProblems problems, String key, Credential c) {
		int before = problems.problems().size();
		String principal = CredentialCheck.identifier(problems, key + "principal", c.principal());
		String credentialId = CredentialCheck.identifier(problems, key + "credential-id", c.credentialId());
		String clientId = (c.clientId() != null) ? CredentialCheck.identifier(problems, key + "client-id", c.clientId())
				: principal;
		if (c.kind() != null && !"worker".equals(c.kind().trim().toLowerCase(Locale.ROOT))) {
			problems.add(key + "kind", "must be worker (administrators use the admin endpoint)");
		}
		Set<String> capabilities = new LinkedHashSet<>();
		Set<String> refused = new LinkedHashSet<>();
		for (String capability : c.capabilitiesOr(Set.of(WorkerCaller.LEASE_CAPABILITY))) {
			String value = capability.trim();
			(KNOWN_CAPABILITIES.contains(value) ? capabilities : refused).add(value);
		}
		if (!refused.isEmpty()) {
			problems.add(key + "capabilities", "must each be targets:lease or targets:read, not "
					+ String.join(", ", refused) + " (administrative capabilities need an administrator credential "
					+ "on the admin endpoint)");
		}
		String hash = CredentialCheck.secretHash(problems, key + "secret-hash", c.secretHash());
		String tenant = CredentialCheck.tenant(problems, key + "tenant", c.tenant());
		String program = null;
		if (c.allPrograms().size() != 1) {
			problems.add(key + "program", "must name exactly one program");
		}
		else {
			program = CredentialCheck.program(problems, key + "program", c.allPrograms().iterator().next());
		}
		Set<String> targets = CredentialCheck.targets(problems, key + "targets", c.targets());
		Set<String> actors = CredentialCheck.actors(problems, key + "actors", c.actors());
		if (problems.problems().size() != before) {
			return null;
		}
		ProgramScope scope = ProgramScope.of(tenant, program);
		return new Entry(new WorkerCaller(principal, credentialId, clientId, capabilities, scope, actors, targets),
				hash);
	}

	/** Number of configured credentials. */
	public int size() {
		return this.byCredentialId.size();
	}

	/**
	 * Authenticates an {@code Authorization} header value.
	 * @return the caller, or {@code null} for a missing, malformed, unknown or wrong credential (all alike)
	 */
	public @Nullable WorkerCaller authenticate(@Nullable String authorization) {
		if (authorization == null || authorization.length() > MAX_HEADER
				|| !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
			return null;
		}
		String decoded;
		try {
			decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
		int colon = decoded.indexOf(':');
		if (colon <= 0) {
			return null;
		}
		String credentialId = decoded.substring(0, colon);
		String secret = decoded.substring(colon + 1);
		Entry entry = this.byCredentialId.get(credentialId);
		boolean matches;
		try {
			// an unknown id is checked against a dummy hash so both take about as long
			matches = this.encoder.matches(secret, (entry != null) ? entry.secretHash() : this.dummyHash);
		}
		catch (RuntimeException ex) {
			return null;
		}
		return (entry != null && matches) ? entry.caller() : null;
	}

}
