package io.starintel.lease.worker.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;

import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.http.Credential;
import io.starintel.lease.http.internal.CredentialCheck;

/**
 * The configured worker credentials and HTTP Basic authentication against them (user name = credential id,
 * password = secret, checked against a password-encoder hash).
 *
 * <p>Invalid configuration fails start-up with a message naming the property: a kind other than {@code worker}, an
 * administrative capability on a worker, a plain or {@code {noop}} secret, a duplicate credential id, or an invalid
 * id, tenant, program, actor or target. No secret is ever kept in clear or logged.
 */
public final class WorkerCredentials {

	private static final Set<String> KNOWN_CAPABILITIES = Set.of(WorkerCaller.LEASE_CAPABILITY, "targets:read");

	private static final int MAX_HEADER = 1024;

	private final Map<String, Entry> byCredentialId;

	private final PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();

	private final String dummyHash;

	private record Entry(WorkerCaller caller, String secretHash) {
	}

	/** Validates and indexes the configured credentials. */
	public WorkerCredentials(List<Credential> credentials) {
		Map<String, Entry> entries = new HashMap<>();
		for (int i = 0; i < credentials.size(); i++) {
			Credential c = credentials.get(i);
			String prefix = "starintel.lease.worker-http.credentials[" + i + "].";
			Entry entry = entry(prefix, c);
			if (entries.putIfAbsent(entry.caller().credentialId(), entry) != null) {
				throw new IllegalArgumentException(prefix + "credential-id is configured twice");
			}
		}
		this.byCredentialId = Map.copyOf(entries);
		this.dummyHash = this.encoder.encode("starintel-worker-dummy-secret");
	}

	private static Entry entry(String prefix, Credential c) {
		String principal = id(prefix + "principal", c.principal());
		String credentialId = id(prefix + "credential-id", c.credentialId());
		String clientId = (c.clientId() != null) ? id(prefix + "client-id", c.clientId()) : principal;
		if (c.kind() != null && !"worker".equals(c.kind().trim().toLowerCase(Locale.ROOT))) {
			throw new IllegalArgumentException(prefix + "kind must be worker (administrators use the admin endpoint)");
		}
		Set<String> capabilities = new HashSet<>();
		for (String capability : c.capabilitiesOr(Set.of(WorkerCaller.LEASE_CAPABILITY))) {
			String value = capability.trim();
			if (!KNOWN_CAPABILITIES.contains(value)) {
				throw new IllegalArgumentException(prefix + "capabilities: a worker may only have "
						+ KNOWN_CAPABILITIES + " (administrative capabilities need an administrator credential)");
			}
			capabilities.add(value);
		}
		String hash = CredentialCheck.secretHash(prefix + "secret-hash", c.secretHash());
		if (c.allPrograms().size() != 1) {
			throw new IllegalArgumentException(prefix + "program must name exactly one program");
		}
		ProgramScope scope;
		try {
			scope = ProgramScope.of(c.tenant(), c.allPrograms().iterator().next());
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(prefix + "tenant and program must be canonical identifiers");
		}
		Set<String> targets = CredentialCheck.targets(prefix + "targets", scope, c.targets());
		Set<String> actors = CredentialCheck.actors(prefix + "actors", scope, c.actors());
		return new Entry(new WorkerCaller(principal, credentialId, clientId, capabilities, scope, actors, targets),
				hash);
	}

	private static String id(String property, @Nullable String value) {
		try {
			return Identifiers.require(property, value);
		}
		catch (InvalidLeaseRequestException ex) {
			throw new IllegalArgumentException(property + " must be 1..128 characters of [A-Za-z0-9._:@-]");
		}
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
