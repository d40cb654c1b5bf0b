package io.starintel.lease.store.redis;

/**
 * How many replicas must have a state change before the store reports it: after every function call that changed
 * state, the store sends {@code WAIT n timeout} (or {@code WAITAOF 1 n timeout} with {@link #withDiskSync()}) on the
 * same connection, inside the call's deadline; fewer acknowledgements than required are never success (the result is
 * {@code lease_outcome_unknown}, reason {@code replicas_not_acknowledged}, resolvable by request id). So is a change
 * whose connection dropped or reconnected before the wait answered: the driver then sends the wait again on the new
 * link, possibly to a node promoted in place of the one that made the change, whose acknowledgement proves nothing.
 *
 * <p>Contract: "a topology that cannot keep the fencing counter and the lease state durable is unsuitable": an
 * acknowledged grant, renewal, release, revoke or fenced-write authorization must survive the promotion of a replica.
 * Redis and Valkey replicate asynchronously; waiting for the replicas closes that window, as Redisson's locks do.
 *
 * @param mode whether the count follows the replicas the primary reports or is fixed
 * @param replicas the fixed count ({@link Mode#FIXED}) or the minimum ({@link Mode#ALL_REPLICAS})
 * @param diskSync whether the primary must also have written the change to its append-only file ({@code WAITAOF},
 * Redis 7.2+ and Valkey; the server needs {@code appendonly yes})
 */
public record ReplicaAcknowledgement(Mode mode, int replicas, boolean diskSync) {

	/** How the required count is chosen. */
	public enum Mode {

		/**
		 * Every replica the primary reports online ({@code INFO replication}, refreshed about once a second), and at
		 * least {@link ReplicaAcknowledgement#replicas()}; on Sentinel and on a cluster shard that has replicas, at
		 * least one.
		 */
		ALL_REPLICAS,
		/** Exactly {@link ReplicaAcknowledgement#replicas()} replicas ({@code 0}: a single server, no wait). */
		FIXED

	}

	public ReplicaAcknowledgement {
		if (replicas < 0) {
			throw new IllegalArgumentException("replicas must not be negative");
		}
	}

	/** The default: every replica the primary reports, at least one where the topology has replicas. */
	public static ReplicaAcknowledgement allReplicas() {
		return new ReplicaAcknowledgement(Mode.ALL_REPLICAS, 0, false);
	}

	/** Every replica the primary reports, and at least {@code minimum}. */
	public static ReplicaAcknowledgement allReplicas(int minimum) {
		return new ReplicaAcknowledgement(Mode.ALL_REPLICAS, minimum, false);
	}

	/** Exactly {@code replicas} acknowledgements. */
	public static ReplicaAcknowledgement exactly(int replicas) {
		return new ReplicaAcknowledgement(Mode.FIXED, replicas, false);
	}

	/** No replica wait: only for a single server without replicas (a promotion could lose acknowledged changes). */
	public static ReplicaAcknowledgement none() {
		return new ReplicaAcknowledgement(Mode.FIXED, 0, false);
	}

	/** The same count, and the primary's own append-only file as well ({@code WAITAOF}). */
	public ReplicaAcknowledgement withDiskSync() {
		return new ReplicaAcknowledgement(this.mode, this.replicas, true);
	}

	/**
	 * The number of replica acknowledgements a change needs on a node.
	 * @param reported the replicas the node reports online
	 * @param topologyHasReplicas whether the deployment is one whose primaries have replicas (Sentinel, or a cluster
	 * shard with a replica)
	 */
	public int required(int reported, boolean topologyHasReplicas) {
		if (this.mode == Mode.FIXED) {
			return this.replicas;
		}
		return Math.max(Math.max(reported, this.replicas), topologyHasReplicas ? 1 : 0);
	}

	/** Whether a change waits for anything at all. */
	public boolean waits() {
		return this.diskSync || this.mode == Mode.ALL_REPLICAS || this.replicas > 0;
	}

}
