package io.starintel.lease.job;

import io.starintel.lease.core.LeaseOwner;

/**
 * Supplies the owner of a lease about to be acquired on the calling thread.
 *
 * <p>Contract: the owner is the authenticated principal or internal security context; a process address is not an
 * owner. The auto-configuration uses the Spring Security principal when one is authenticated, else the configured
 * service principal.
 */
@FunctionalInterface
public interface LeaseOwnerProvider {

	/** The owner for an acquisition on the current thread. */
	LeaseOwner currentOwner();

}
