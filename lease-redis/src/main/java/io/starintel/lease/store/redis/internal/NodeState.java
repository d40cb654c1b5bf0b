package io.starintel.lease.store.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

/**
 * What the executor knows of one primary: whether the function library is loaded there (sent ahead of the node's
 * first call, and again after "function not found"), how many replicas it reports online ({@code INFO replication})
 * and, a cluster primary, whether its own view of the cluster has replicas ({@code CLUSTER NODES}), refreshed about
 * once a second and whenever a replica wait fell short. An {@code INFO} answered by a node that is not a primary
 * ({@code role:slave}: a connection left on a demoted primary, or reconnected to a cached address that is a replica
 * now) is not the primary's count: it leaves the count as it was, and the next call asks again on its own connection.
 */
final class NodeState {

	/** How old the replica count may get before a call refreshes it (without waiting for the refresh). */
	static final long REFRESH_MILLIS = 1_000;

	/** The shortest interval between two forced refreshes (after a wait fell short or a node lacked replicas). */
	static final long FORCED_REFRESH_MILLIS = 100;

	/**
	 * How long a refresh may stay unanswered before another caller may start one: an {@code INFO} sent on a
	 * connection that then lost its server stays queued while Lettuce reconnects, and must not stop every later
	 * refresh (the node's replica count would stay what it was before a failover).
	 */
	static final long STALLED_REFRESH_MILLIS = 1_000;

	private final String name;

	private volatile boolean topologyHasReplicas;

	private final boolean clusterPrimary;

	private volatile boolean nodeSeesReplicas;

	private volatile boolean libraryLoaded;

	private volatile int onlineReplicas = -1;

	private volatile long refreshedAt;

	private volatile boolean refreshing;

	private volatile boolean replicaAnswered;

	private boolean doubted;

	private final AtomicBoolean waitRefused = new AtomicBoolean();

	private volatile long refreshStartedAt;

	private volatile CompletableFuture<Void> pending = CompletableFuture.completedFuture(null);

	/**
	 * @param name the node's address, for logs (no key material)
	 * @param topologyHasReplicas whether the deployment gives this primary replicas (Sentinel; a cluster shard with a
	 * replica)
	 */
	NodeState(String name, boolean topologyHasReplicas) {
		this(name, topologyHasReplicas, false);
	}

	/**
	 * @param name the node's address, for logs (no key material)
	 * @param topologyHasReplicas what the client's view of the topology says ({@link #hasReplicas})
	 * @param clusterPrimary a cluster primary: its own view of the cluster is asked with its replica count
	 */
	NodeState(String name, boolean topologyHasReplicas, boolean clusterPrimary) {
		this.name = name;
		this.topologyHasReplicas = topologyHasReplicas;
		this.clusterPrimary = clusterPrimary;
	}

	String name() {
		return this.name;
	}

	/**
	 * Whether the deployment has replicas: by the client's latest view of the topology, or by the node's own view
	 * (a cluster primary's {@code CLUSTER NODES}, asked with its replica count). Either suffices: a client's view may
	 * be older than the replicas (loaded once, before they registered).
	 */
	boolean topologyHasReplicas() {
		return this.topologyHasReplicas || this.nodeSeesReplicas;
	}

	/** Whether the node's own view of the cluster is asked with its replica count. */
	boolean asksClusterView() {
		return this.clusterPrimary;
	}

	/**
	 * What the client's latest view of the topology says (a cluster node's role and its shard change with every
	 * failover).
	 */
	void topologyHasReplicas(boolean hasReplicas) {
		this.topologyHasReplicas = hasReplicas;
	}

	/** The replicas the node last reported online, or -1 before the first report. */
	int onlineReplicas() {
		return this.onlineReplicas;
	}

	/**
	 * Whether a caller should refresh the count now (and claims the refresh if so): one at a time, at most once a
	 * second, or every {@value #FORCED_REFRESH_MILLIS} ms when {@code forced} or the count is {@link #doubt doubted}.
	 */
	synchronized boolean claimRefresh(long nowMs, boolean forced) {
		long age = nowMs - this.refreshedAt;
		boolean stalled = this.refreshing && nowMs - this.refreshStartedAt >= STALLED_REFRESH_MILLIS;
		if ((this.refreshing && !stalled)
				|| age < ((forced || this.doubted) ? FORCED_REFRESH_MILLIS : REFRESH_MILLIS)) {
			return false;
		}
		this.doubted = false;
		if (stalled) {
			this.pending.complete(null); // its waiters re-read the count they have
		}
		this.refreshing = true;
		this.refreshStartedAt = nowMs;
		this.pending = new CompletableFuture<>();
		return true;
	}

	/**
	 * A replica wait fell short, or its connection dropped: the count may be stale, and the next call asks again
	 * (without waiting for the usual interval).
	 */
	synchronized void doubt() {
		this.doubted = true;
	}

	/** Whether this is the first time the node refused a replica wait with an error (reported once). */
	boolean waitRefusedFirst() {
		return this.waitRefused.compareAndSet(false, true);
	}

	/** The refresh in flight (completed when none is): a caller that needs the first count waits for it. */
	CompletableFuture<Void> pending() {
		return this.pending;
	}

	/** Records an {@code INFO replication} reply (or, when null, that the refresh failed). */
	void refreshed(@Nullable String info, long nowMs) {
		refreshed(info, null, nowMs);
	}

	/**
	 * Records an {@code INFO replication} reply (or, when null, that the refresh failed) and, when answered, the
	 * node's {@code CLUSTER NODES} (null: what the node said before stands).
	 */
	void refreshed(@Nullable String info, @Nullable String clusterNodes, long nowMs) {
		CompletableFuture<Void> done;
		synchronized (this) {
			if (info != null && isPrimary(info)) {
				this.onlineReplicas = onlineReplicas(info);
				this.refreshedAt = nowMs;
				this.replicaAnswered = false;
			}
			else if (info != null) {
				// a replica's count is not the primary's: the count stands, and the next call asks again soon
				this.replicaAnswered = true;
				this.doubted = true;
			}
			if (clusterNodes != null) {
				try {
					this.nodeSeesReplicas = hasReplicas(ClusterPartitionParser.parse(clusterNodes));
				}
				catch (RuntimeException ex) {
					// an answer the driver cannot read: what the node said before stands
				}
			}
			this.refreshing = false;
			done = this.pending;
		}
		done.complete(null);
	}

	/**
	 * Whether the latest {@code INFO} answer came from a node that is not a primary: some connection of the store is on
	 * a replica (a call about to refuse for want of replicas first asks its own connection's node what it is).
	 */
	boolean replicaAnswered() {
		return this.replicaAnswered;
	}

	/** Whether the function library is known to be loaded on the node. */
	boolean isLibraryLoaded() {
		return this.libraryLoaded;
	}

	/** The node has the library (a load succeeded, or found it there). */
	void libraryLoaded() {
		this.libraryLoaded = true;
	}

	/** The node answered "function not found" (a flush, restart or failover): load it again before the next call. */
	void libraryLost() {
		this.libraryLoaded = false;
	}

	/** Replicas in state {@code online} in an {@code INFO replication} text. */
	static int onlineReplicas(String info) {
		int online = 0;
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("slave") && line.indexOf(':') > 0 && line.contains("state=online")) {
				online++;
			}
		}
		return online;
	}

	/**
	 * Whether a view of the cluster has replicas at all (any node, whatever its state, is a replica): then every
	 * primary's changes wait for at least one. Deciding per shard is not safe: a primary just promoted shows no replica
	 * until its former primary rejoins and resynchronizes, and a change acknowledged by no replica in that window is
	 * lost by the next failover of that shard (found by the failover load run).
	 */
	static boolean hasReplicas(Iterable<RedisClusterNode> view) {
		for (RedisClusterNode node : view) {
			if (node.getSlaveOf() != null || node.is(RedisClusterNode.NodeFlag.REPLICA)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether an {@code INFO replication} text is a primary's ({@code role:master}; a replica says {@code role:slave},
	 * Redis and Valkey alike).
	 */
	static boolean isPrimary(String info) {
		return info.contains("role:master");
	}

}
