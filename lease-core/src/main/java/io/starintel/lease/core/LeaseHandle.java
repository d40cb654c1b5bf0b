package io.starintel.lease.core;

import io.starintel.lease.core.internal.Identifiers;

/**
 * The exact ownership tuple a holder presents to renew, release or commit.
 *
 * <p>Contract: renewal, release and fenced commits require the exact lock identity, lease id, owner principal,
 * service instance and fencing token; possessing a lease id alone is not authority.
 */
public record LeaseHandle(LockIdentity identity, String leaseId, String ownerPrincipalId, String serviceInstanceId,
		long fencingToken) {

	/** Validates every field. */
	public LeaseHandle {
		if (identity == null) {
			throw new InvalidLeaseRequestException("lock_identity", "missing");
		}
		Identifiers.require("lease_id", leaseId);
		Identifiers.require("owner_principal_id", ownerPrincipalId);
		Identifiers.require("service_instance_id", serviceInstanceId);
		if (fencingToken <= 0 || fencingToken >= LeaseRecord.MAX_FENCING_TOKEN) {
			throw new InvalidLeaseRequestException("fencing_token", "out of range");
		}
	}

}
