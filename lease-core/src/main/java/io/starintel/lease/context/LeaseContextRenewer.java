package io.starintel.lease.context;

import java.time.Duration;

import io.starintel.lease.core.LeaseResult;

/**
 * Renews a leased execution's lease now with a new TTL, for {@link LeaseContext#renew(Duration)}: implemented by the
 * renewal scheduler that renews the context (the jobs module), which then follows the new TTL.
 */
@FunctionalInterface
public interface LeaseContextRenewer {

	/**
	 * Renews the context's lease now with {@code ttl} (contract: within the TTL policy, never past the maximum
	 * lifetime; the token never changes).
	 * @param context the leased execution
	 * @param ttl the new TTL
	 * @return the renewal's typed result
	 */
	LeaseResult renew(LeaseContext context, Duration ttl);

}
