package io.starintel.lease.http.internal;

import java.util.LinkedHashSet;
import java.util.Collection;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;

/**
 * The checks of a configured credential both adapters apply at start-up: the secret is a password-encoder hash (never
 * plain or {@code {noop}}), and the actor and target restrictions are canonical. Failures are
 * {@link IllegalArgumentException}s naming the property, never the secret or hash.
 */
public final class CredentialCheck {

	private CredentialCheck() {
	}

	/** Requires a password-encoder hash such as {@code {bcrypt}$2a$10$...}; plain and {@code {noop}} are refused. */
	public static String secretHash(String property, @Nullable String hash) {
		if (hash == null || !hash.startsWith("{") || hash.startsWith("{noop}") || hash.indexOf('}') < 2) {
			throw new IllegalArgumentException(property + " must be a password-encoder hash such as "
					+ "{bcrypt}$2a$10$... (plain and {noop} secrets are refused)");
		}
		return hash;
	}

	/** The canonical actor names of a credential's actor restriction (empty: any actor). */
	public static Set<String> actors(String property, ProgramScope scope, Collection<String> actors) {
		Set<String> canonical = new LinkedHashSet<>();
		for (String actor : actors) {
			try {
				canonical.add(LockIdentity.of(scope.tenantId(), scope.programId(), "probe", "probe", actor, "default",
						null).actorName());
			}
			catch (InvalidLeaseRequestException ex) {
				throw new IllegalArgumentException(property + ": each must be a canonical actor name");
			}
		}
		return canonical;
	}

	/** The canonical {@code target_namespace/target_id} entries of a credential's target restriction (empty: any). */
	public static Set<String> targets(String property, ProgramScope scope, Collection<String> targets) {
		Set<String> canonical = new LinkedHashSet<>();
		for (String target : targets) {
			int slash = target.indexOf('/');
			try {
				if (slash <= 0) {
					throw new InvalidLeaseRequestException("target", "missing namespace");
				}
				LockIdentity probe = LockIdentity.of(scope.tenantId(), scope.programId(), target.substring(0, slash),
						target.substring(slash + 1), "probe", "default", null);
				canonical.add(probe.targetNamespace() + "/" + probe.targetId());
			}
			catch (InvalidLeaseRequestException ex) {
				throw new IllegalArgumentException(property + ": each must be target_namespace/target_id");
			}
		}
		return canonical;
	}

}
