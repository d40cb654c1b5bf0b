package io.starintel.lease.core;

import io.starintel.lease.core.internal.Identifiers;

/**
 * Who acquires a lease: the authenticated principal, its client and non-secret credential id, and the service
 * instance. Contract: a process address is not an owner; credential secrets are never carried.
 */
public record LeaseOwner(String principalId, String clientId, String credentialId, String serviceInstanceId) {

	/** Validates every identifier. */
	public LeaseOwner {
		Identifiers.require("owner_principal_id", principalId);
		Identifiers.require("owner_client_id", clientId);
		Identifiers.require("owner_credential_id", credentialId);
		Identifiers.require("service_instance_id", serviceInstanceId);
	}

}
