package io.starintel.lease.core;

import io.starintel.lease.core.internal.Identifiers;

/**
 * Trusted canonical list filters. Contract: list operations never accept raw backend patterns or prefixes.
 */
public sealed interface ListFilter {

	/** The program scope every filter is confined to. */
	ProgramScope scope();

	/** All active leases of a program. */
	record ByProgram(ProgramScope scope) implements ListFilter {

		/** Validates presence. */
		public ByProgram {
			if (scope == null) {
				throw new InvalidLeaseRequestException("scope", "missing");
			}
		}

	}

	/** Active leases of a program held by one owner principal. */
	record ByOwner(ProgramScope scope, String ownerPrincipalId) implements ListFilter {

		/** Validates presence and the principal id. */
		public ByOwner {
			if (scope == null) {
				throw new InvalidLeaseRequestException("scope", "missing");
			}
			Identifiers.require("owner_principal_id", ownerPrincipalId);
		}

	}

	/** Active leases of a program on one resolved target (any actor, workflow or operation class). */
	record ByTarget(ProgramScope scope, String targetNamespace, String targetId) implements ListFilter {

		/** Normalizes the target like the lock identity does. */
		public ByTarget {
			if (scope == null) {
				throw new InvalidLeaseRequestException("scope", "missing");
			}
			targetNamespace = IdentityRules.slug("target_namespace", targetNamespace);
			targetId = IdentityRules.targetId(targetId);
		}

	}

}
