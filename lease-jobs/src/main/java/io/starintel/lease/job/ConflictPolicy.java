package io.starintel.lease.job;

/** What a {@link TargetLeased} method does when another holder has the lease (contract: acquire-if-free). */
public enum ConflictPolicy {

	/** The method does not run; the caller gets an empty result (see {@link TargetLeased}); logged at INFO. */
	SKIP,

	/** The method does not run; the caller gets a {@link LeaseConflictException}. */
	THROW

}
