package io.starintel.lease.core;

/**
 * Machine-readable refinement of a {@link ResultCode}; never carries secrets or backend details.
 */
public enum Reason {

	NONE("none"),
	/** A lease record failed strict validation; the store failed closed and quarantined it. */
	CORRUPT_RECORD("corrupt_record"),
	/** The next fencing token would reach 2^53 - 1; acquisition refused, never wrapped. */
	FENCING_COUNTER_EXHAUSTED("fencing_counter_exhausted"),
	/** Backend time is behind the last issued token by more than the configured skew bound. */
	BACKEND_CLOCK_BEHIND("backend_clock_behind"),
	/** The backend could not be reached before submission. */
	BACKEND_UNREACHABLE("backend_unreachable"),
	/** The command was submitted but no reply arrived in time. */
	REPLY_LOST("reply_lost"),
	/** A renewal, release or commit named a lease that is no longer the active one. */
	STALE_LEASE("stale_lease"),
	/** The lease reached its expiry at backend time. */
	EXPIRED("expired"),
	/** A commit token is below the identity's fenced-write high-water mark. */
	TOKEN_BELOW_HIGH_WATER_MARK("token_below_high_water_mark"),
	/** The maximum lifetime of the lease has been reached; renewal cannot extend it. */
	MAXIMUM_LIFETIME_REACHED("maximum_lifetime_reached"),
	/** A put-with-lease named a key attached to another lease (delete it there first). */
	ATTACHED_TO_ANOTHER_LEASE("attached_to_another_lease"),
	/** A put-with-lease would exceed the policy's maximum number of keys attached to one lease. */
	ATTACHED_KEY_LIMIT_REACHED("attached_key_limit_reached"),
	/** No such attached key (or it belongs to a lease that is no longer active, or to another lease). */
	ATTACHMENT_NOT_FOUND("attachment_not_found"),
	/** The program already holds its maximum number of active leases ({@code lease_rate_limited}). */
	ACTIVE_LEASE_LIMIT_REACHED("active_lease_limit_reached"),
	/**
	 * The change was made on the primary but fewer replicas than required acknowledged it before the deadline
	 * ({@code lease_outcome_unknown}: a promotion could still lose it; resolve by request id).
	 */
	REPLICAS_NOT_ACKNOWLEDGED("replicas_not_acknowledged"),
	/** The primary reports fewer replicas than a change must wait for: nothing was sent. */
	REPLICAS_UNAVAILABLE("replicas_unavailable"),
	/**
	 * The store's connection reached a node that is not a primary (a replica: a primary demoted by a failover or a
	 * restart while the connection stayed open, or a client that reconnected to a cached address): nothing was run;
	 * the connection is replaced and a retry goes through the client's discovery again ({@code lease_backend_unavailable},
	 * retryable).
	 */
	NOT_PRIMARY("not_primary"),
	/**
	 * The node now serving the program was promoted, restarted or restored since the program's state was written:
	 * every pre-failover lease must be revoked (recovery) before the program serves calls again.
	 */
	RECOVERY_REQUIRED("recovery_required");

	private final String wireName;

	Reason(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name. */
	public String wireName() {
		return this.wireName;
	}

	private static final Reason[] VALUES = values();

	/** Looks a reason up by its wire name. */
	public static Reason fromWireName(String wireName) {
		for (Reason reason : VALUES) {
			if (reason.wireName.equals(wireName)) {
				return reason;
			}
		}
		throw new IllegalArgumentException("unknown reason");
	}

}
