package io.starintel.lease.store.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster, reached through the application's {@link RedisClusterClient}: each call goes to a connection to
 * the one primary that serves its slot (looked up in the client's view of the topology), so that the replica wait
 * after it is answered by that primary, and a dead node fails only the calls of its own slots (no check of the whole
 * cluster connection). A {@code MOVED} reply (the slot moved: a failover or a resharding) refreshes the topology and
 * sends the call, which did not run, to the named node.
 */
final class ClusterRouter implements Router {

	private static final long REFRESH_INTERVAL_MILLIS = 100;

	private final RedisClusterClient client;

	private final ConnectionPool<StatefulRedisClusterConnection<byte[], byte[]>> pool;

	private final Map<String, NodeState> nodes = new ConcurrentHashMap<>();

	private final AtomicLong lastRefresh = new AtomicLong();

	/**
	 * @param connector the thread that opens connections: the client's topology is read first ({@code getPartitions}
	 * blocks until the client knows it, which a client the factory has not used yet does not)
	 */
	ClusterRouter(RedisClusterClient client, ExecutorService connector, int maxConnections) {
		this.client = client;
		this.pool = new ConnectionPool<>(() -> CompletableFuture.supplyAsync(() -> {
			client.getPartitions();
			return client.connect(ByteArrayCodec.INSTANCE);
		}, connector), StatefulRedisClusterConnection::isOpen, StatefulRedisClusterConnection::closeAsync,
				maxConnections);
	}

	@Override
	public Route route(byte[] firstKey, long deadlineMs) throws ScriptFailure {
		ConnectionPool.Loan<StatefulRedisClusterConnection<byte[], byte[]>> loan = this.pool.borrow(deadlineMs);
		try {
			Partitions partitions = loan.connection().getPartitions();
			RedisClusterNode primary = partitions.getMasterBySlot(SlotHash.getSlot(firstKey));
			if (primary == null) {
				refreshTopology();
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "no primary serves the slot");
			}
			return nodeRoute(loan, primary.getUri().getHost(), primary.getUri().getPort(), partitions, deadlineMs);
		}
		catch (ScriptFailure | RuntimeException ex) {
			this.pool.release(loan);
			if (ex instanceof ScriptFailure failure) {
				throw failure;
			}
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "no route");
		}
	}

	@Override
	public Route moved(String hostAndPort, long deadlineMs) throws ScriptFailure {
		refreshTopology();
		int colon = hostAndPort.lastIndexOf(':');
		if (colon <= 0) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "unreadable redirection");
		}
		String host = hostAndPort.substring(0, colon);
		int port;
		try {
			port = Integer.parseInt(hostAndPort.substring(colon + 1).trim());
		}
		catch (NumberFormatException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "unreadable redirection");
		}
		ConnectionPool.Loan<StatefulRedisClusterConnection<byte[], byte[]>> loan = this.pool.borrow(deadlineMs);
		try {
			return nodeRoute(loan, host, port, loan.connection().getPartitions(), deadlineMs);
		}
		catch (ScriptFailure ex) {
			this.pool.release(loan);
			throw ex;
		}
	}

	private Route nodeRoute(ConnectionPool.Loan<StatefulRedisClusterConnection<byte[], byte[]>> loan, String host,
			int port, Partitions partitions, long deadlineMs) throws ScriptFailure {
		StatefulRedisConnection<byte[], byte[]> connection = await(loan.connection().getConnectionAsync(host, port),
				deadlineMs);
		if (!connection.isOpen()) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "node connection not open");
		}
		String name = host + ":" + port;
		boolean replicated = NodeState.hasReplicas(partitions);
		NodeState node = this.nodes.computeIfAbsent(name, (key) -> new NodeState(name, replicated, true));
		node.topologyHasReplicas(replicated);
		// a node that is not a primary (a view older than a failover): the client reads the topology again (its
		// writes answer MOVED to the primary meanwhile); the cluster connection, shared by other calls' nodes, stays
		return new Route(connection.async(), connection, node, true, () -> this.pool.release(loan),
				() -> this.pool.retire(loan.connection()), this::refreshTopology);
	}

	@Override
	public Primaries primaries(long deadlineMs) {
		List<Route> routes = new ArrayList<>();
		boolean all = true;
		ConnectionPool.Loan<StatefulRedisClusterConnection<byte[], byte[]>> first;
		try {
			first = this.pool.borrow(deadlineMs);
		}
		catch (ScriptFailure ex) {
			return new Primaries(routes, false);
		}
		Partitions partitions = first.connection().getPartitions();
		this.pool.release(first);
		for (RedisClusterNode candidate : partitions) {
			if (!candidate.is(RedisClusterNode.NodeFlag.UPSTREAM) || candidate.getSlots().isEmpty()) {
				continue;
			}
			RedisURI uri = candidate.getUri();
			try {
				ConnectionPool.Loan<StatefulRedisClusterConnection<byte[], byte[]>> loan = this.pool.borrow(deadlineMs);
				try {
					routes.add(nodeRoute(loan, uri.getHost(), uri.getPort(), partitions, deadlineMs));
				}
				catch (ScriptFailure ex) {
					this.pool.release(loan);
					all = false;
				}
			}
			catch (ScriptFailure ex) {
				// this primary is unreachable now: skipped, and the list says it is incomplete
				all = false;
			}
		}
		return new Primaries(routes, all);
	}

	/** Asks the client to re-read the topology, at most every {@value #REFRESH_INTERVAL_MILLIS} ms. */
	private void refreshTopology() {
		long now = System.currentTimeMillis();
		long last = this.lastRefresh.get();
		if (now - last >= REFRESH_INTERVAL_MILLIS && this.lastRefresh.compareAndSet(last, now)) {
			this.client.refreshPartitionsAsync();
		}
	}

	private static <T> T await(CompletableFuture<T> future, long deadlineMs) throws ScriptFailure {
		try {
			return future.get(Math.max(1, deadlineMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "connecting to the node");
		}
		catch (ExecutionException | RuntimeException ex) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "node unreachable");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "interrupted");
		}
	}

	@Override
	public void close() {
		this.pool.close();
	}

	@Override
	public void abandon() {
		this.pool.abandon();
	}

}
