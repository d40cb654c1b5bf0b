package io.starintel.lease.worker.internal;

import java.util.Set;

import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;

/**
 * An authenticated worker: its principal, credential and client ids, its capabilities, and its scope (one tenant and
 * program, optionally restricted actors and targets). Tenant and program of every identity come from here, never
 * from a request body.
 */
record WorkerCaller(String principalId, String credentialId, String clientId, Set<String> capabilities,
		ProgramScope scope, Set<String> actors, Set<String> targets) {

	/** The capability of the lease operations. */
	public static final String LEASE_CAPABILITY = "targets:lease";

	/** Copies the sets. */
	public WorkerCaller {
		capabilities = Set.copyOf(capabilities);
		actors = Set.copyOf(actors);
		targets = Set.copyOf(targets);
	}

	/** Whether this caller may use the lease operations. */
	public boolean mayLease() {
		return this.capabilities.contains(LEASE_CAPABILITY);
	}

	/** Whether the identity lies in this caller's actor and target scope (tenant and program are always its own). */
	public boolean covers(LockIdentity identity) {
		return identity.scope().equals(this.scope)
				&& (this.actors.isEmpty() || this.actors.contains(identity.actorName()))
				&& (this.targets.isEmpty()
						|| this.targets.contains(identity.targetNamespace() + "/" + identity.targetId()));
	}

	/** The lease owner for a request of this caller from one service instance. */
	public LeaseOwner owner(String serviceInstanceId) {
		return new LeaseOwner(this.principalId, this.clientId, this.credentialId, serviceInstanceId);
	}

}
