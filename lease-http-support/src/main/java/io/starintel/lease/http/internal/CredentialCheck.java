package io.starintel.lease.http.internal;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.PropertyProblems;

/**
 * The checks of a configured credential both adapters apply at start-up: ids are bounded identifiers, the secret is a
 * password-encoder hash (never plain or {@code {noop}}), the scope and the actor and target restrictions are canonical.
 * Each check records its problem in the adapter's {@link PropertyProblems} under the credential's key
 * ({@code credentials[0].secret-hash}) and returns {@code null} (or a partial set), so that the adapter reports every
 * problem of every credential at once; no check depends on another's value being valid. A problem never shows the
 * secret or hash, nor an invalid id's value.
 */
public final class CredentialCheck {

	/** A canonical scope for the checks of actors and targets, whose canonical form does not depend on the scope. */
	private static final String PROBE = "probe";

	private CredentialCheck() {
	}

	/**
	 * Requires a bounded identifier (1..128 characters of {@code [A-Za-z0-9._:@-]}).
	 * @return the value, or {@code null} when it is missing or invalid (a problem of {@code key} recorded)
	 */
	public static @Nullable String identifier(PropertyProblems problems, String key, @Nullable String value) {
		if (value == null || value.isEmpty()) {
			problems.add(key, "must be set");
			return null;
		}
		if (!Identifiers.isValid(value)) {
			problems.add(key, "must be 1.." + Identifiers.MAX_LENGTH + " characters of [A-Za-z0-9._:@-]");
			return null;
		}
		return value;
	}

	/**
	 * Records the credential id of the credential at {@code index} in {@code first} (id to the index of the credential
	 * that names it first) and a problem of its {@code credential-id} when an earlier credential names the same id; an
	 * invalid id is left to {@link #identifier}.
	 */
	public static void uniqueId(PropertyProblems problems, Map<String, Integer> first, int index,
			@Nullable String credentialId) {
		if (credentialId != null && Identifiers.isValid(credentialId)) {
			Integer earlier = first.putIfAbsent(credentialId, index);
			if (earlier != null) {
				problems.add("credentials[" + index + "].credential-id", "(" + credentialId
						+ ") is also the credential-id of " + problems.property("credentials[" + earlier + "]"));
			}
		}
	}

	/**
	 * Requires a password-encoder hash such as {@code {bcrypt}$2a$10$...}; plain and {@code {noop}} are refused.
	 * @return the hash, or {@code null} when it is not one (a problem of {@code key} recorded, without the value)
	 */
	public static @Nullable String secretHash(PropertyProblems problems, String key, @Nullable String hash) {
		if (hash == null || !hash.startsWith("{") || hash.startsWith("{noop}") || hash.indexOf('}') < 2) {
			problems.add(key, "must be a password-encoder hash such as {bcrypt}$2a$10$... (plain and {noop} secrets "
					+ "are refused)");
			return null;
		}
		return hash;
	}

	/**
	 * Requires a tenant id that is a canonical identity component.
	 * @return the canonical tenant id, or {@code null} when it is missing or invalid (a problem of {@code key}
	 * recorded)
	 */
	public static @Nullable String tenant(PropertyProblems problems, String key, @Nullable String tenant) {
		if (tenant == null || tenant.isEmpty()) {
			problems.add(key, "must be set");
			return null;
		}
		try {
			return ProgramScope.of(tenant, PROBE).tenantId();
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add(key, "is not a canonical identity component: " + ex.getMessage());
			return null;
		}
	}

	/**
	 * Requires a program id that is a canonical identity component.
	 * @return the canonical program id, or {@code null} when it is missing or invalid (a problem of {@code key}
	 * recorded)
	 */
	public static @Nullable String program(PropertyProblems problems, String key, @Nullable String program) {
		if (program == null || program.isEmpty()) {
			problems.add(key, "must be set");
			return null;
		}
		try {
			return ProgramScope.of(PROBE, program).programId();
		}
		catch (InvalidLeaseRequestException ex) {
			problems.add(key, "is not a canonical identity component: " + ex.getMessage());
			return null;
		}
	}

	/**
	 * The canonical actor names of a credential's actor restriction (empty: any actor); one problem of {@code key}
	 * when any is not a canonical actor name.
	 */
	public static Set<String> actors(PropertyProblems problems, String key, Collection<String> actors) {
		Set<String> canonical = new LinkedHashSet<>();
		boolean invalid = false;
		for (String actor : actors) {
			try {
				canonical.add(LockIdentity.of(PROBE, PROBE, PROBE, PROBE, actor, "default", null).actorName());
			}
			catch (InvalidLeaseRequestException ex) {
				invalid = true;
			}
		}
		if (invalid) {
			problems.add(key, "must each be a canonical actor name");
		}
		return canonical;
	}

	/**
	 * The canonical {@code target_namespace/target_id} entries of a credential's target restriction (empty: any); one
	 * problem of {@code key} when any is not of that form.
	 */
	public static Set<String> targets(PropertyProblems problems, String key, Collection<String> targets) {
		Set<String> canonical = new LinkedHashSet<>();
		boolean invalid = false;
		for (String target : targets) {
			int slash = target.indexOf('/');
			try {
				if (slash <= 0) {
					throw new InvalidLeaseRequestException("target", "missing namespace");
				}
				LockIdentity probe = LockIdentity.of(PROBE, PROBE, target.substring(0, slash),
						target.substring(slash + 1), PROBE, "default", null);
				canonical.add(probe.targetNamespace() + "/" + probe.targetId());
			}
			catch (InvalidLeaseRequestException ex) {
				invalid = true;
			}
		}
		if (invalid) {
			problems.add(key, "must each be target_namespace/target_id");
		}
		return canonical;
	}

}
