package io.starintel.lease.admin;

import java.util.Set;

import io.starintel.lease.admin.internal.AdminCapability;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;

/**
 * What one authenticated caller may do on the admin endpoint: its ids, kind, capabilities and canonical scope (one
 * tenant, a set of programs, optionally a set of actors).
 *
 * <p>Contract: "Ordinary callers see only leases within their authorized tenant/program/actor/target scope."
 *
 * @param principalId principal id (audited)
 * @param credentialId non-secret credential id (audited)
 * @param kind credential kind
 * @param capabilities capabilities held (authority names)
 * @param tenantId the one tenant of the scope
 * @param programs programs of the scope (canonical, non-empty)
 * @param actors actors of the scope; empty means every actor
 * @param targets targets of the scope as {@code target_namespace/target_id} (canonical); empty means every target
 */
public record AdminGrant(String principalId, String credentialId, CredentialKind kind, Set<String> capabilities,
		String tenantId, Set<String> programs, Set<String> actors, Set<String> targets) {

	/** Copies the sets. */
	public AdminGrant {
		capabilities = Set.copyOf(capabilities);
		programs = Set.copyOf(programs);
		actors = Set.copyOf(actors);
		targets = Set.copyOf(targets);
	}

	/** A grant without actor or target restriction. */
	public AdminGrant(String principalId, String credentialId, CredentialKind kind, Set<String> capabilities,
			String tenantId, Set<String> programs) {
		this(principalId, credentialId, kind, capabilities, tenantId, programs, Set.of(), Set.of());
	}

	/** Whether the capability is held; administrative capabilities count only for administrator credentials. */
	public boolean has(String capability) {
		if (AdminCapability.isAdministrative(capability) && this.kind != CredentialKind.ADMINISTRATOR) {
			return false;
		}
		return this.capabilities.contains(capability);
	}

	/** Whether the program scope is inside the grant. */
	public boolean allows(ProgramScope scope) {
		return this.tenantId.equals(scope.tenantId()) && this.programs.contains(scope.programId());
	}

	/** Whether the identity is inside the grant (program and, when restricted, actor and target). */
	public boolean allows(LockIdentity identity) {
		return allows(identity.scope()) && (this.actors.isEmpty() || this.actors.contains(identity.actorName()))
				&& (this.targets.isEmpty()
						|| this.targets.contains(identity.targetNamespace() + "/" + identity.targetId()));
	}

}
