package io.starintel.lease.http;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One configured credential of an HTTP adapter ({@code starintel.lease.admin.credentials[*]},
 * {@code starintel.lease.worker-http.credentials[*]}): who it is, its secret's hash, what it may do and where. Each
 * adapter checks it at start-up and applies its own defaults where a value is not set (kind, capabilities); a value
 * the adapter does not use (the worker's client id on the admin endpoint) is ignored there.
 *
 * @param principal Principal id the credential authenticates as (the worker API: owner principal of its leases).
 * @param credentialId Non-secret credential id: the HTTP Basic user name, recorded in audit events (and, for a worker,
 * as the lease's owner credential id).
 * @param clientId Owner client id recorded with each lease a worker acquires (worker API only; defaults to the
 * principal).
 * @param secretHash Password-encoder hash of the secret, e.g. "{bcrypt}$2a$10$...". Never the secret itself; plain
 * and {noop} values fail start-up.
 * @param kind Kind of credential: worker, operator or administrator (admin endpoint default: operator; the worker API
 * accepts only worker, its default).
 * @param capabilities Capabilities (admin endpoint: targets:read, targets:force-release, targets:revoke, none by
 * default; worker API: targets:lease by default, or targets:read).
 * @param tenant Tenant of the credential's scope.
 * @param program Program of the credential's scope (one program; the worker API's form).
 * @param programs Programs of the credential's scope (the admin endpoint's form; added to program).
 * @param actors Actors of the credential's scope; empty for every actor.
 * @param targets Targets of the credential's scope as target_namespace/target_id; empty for every target.
 */
public record Credential(@Nullable String principal, @Nullable String credentialId, @Nullable String clientId,
		@Nullable String secretHash, @Nullable String kind, @Nullable Set<String> capabilities, @Nullable String tenant,
		@Nullable String program, @DefaultValue Set<String> programs, @DefaultValue Set<String> actors,
		@DefaultValue Set<String> targets) {

	/** Copies the collections (binding may hand over mutable ones). */
	public Credential {
		capabilities = (capabilities != null) ? copy(capabilities) : null;
		programs = copy(programs);
		actors = copy(actors);
		targets = copy(targets);
	}

	private static Set<String> copy(Set<String> values) {
		return Collections.unmodifiableSet(new LinkedHashSet<>(values));
	}

	/** The programs of the scope: {@code program} (when set) and then {@code programs}, without duplicates. */
	public Set<String> allPrograms() {
		Set<String> all = new LinkedHashSet<>();
		if (this.program != null) {
			all.add(this.program);
		}
		all.addAll(this.programs);
		return all;
	}

	/** The capabilities, or {@code defaults} when none are configured. */
	public Set<String> capabilitiesOr(Set<String> defaults) {
		return (this.capabilities != null) ? this.capabilities : defaults;
	}

}
