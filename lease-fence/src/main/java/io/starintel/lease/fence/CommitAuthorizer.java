package io.starintel.lease.fence;

import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseResult;

/**
 * The one call a {@link FenceGuard} makes: authorize-commit at backend time ({@code LeaseStore::authorizeCommit}, or
 * the lease service's {@code authorizeCommit}, which times, observes and audits it).
 */
@FunctionalInterface
public interface CommitAuthorizer {

	/** Authorizes one fenced commit of the request's handle. */
	LeaseResult authorizeCommit(CommitRequest request);

}
