package io.starintel.lease.store.redis;

/**
 * The outcome of a failover recovery ({@link RedisLeaseStore#recoverPromotedPrograms}): how many primaries were
 * scanned, how many programs they hold, how many of those needed recovery and got it, how many leases were revoked,
 * and how many programs still await recovery (the deadline came first or a node did not answer: run it again).
 *
 * @param nodes primaries scanned
 * @param programs programs found on them
 * @param recovered programs recovered by this run (their pre-failover leases revoked, this node's identity stamped)
 * @param revoked leases revoked
 * @param left programs that still need recovery
 */
public record RecoveryReport(int nodes, int programs, int recovered, long revoked, int left) {

	/** Whether every program found is now served (nothing is left to recover). */
	public boolean complete() {
		return this.left == 0;
	}

}
