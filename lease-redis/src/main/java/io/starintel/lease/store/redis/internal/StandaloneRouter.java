package io.starintel.lease.store.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * One primary, reached through the application's {@link RedisClient} as Spring Boot configured it (standalone, or
 * Sentinel: the client asks the sentinels for the primary and follows a promotion by reconnecting to the new one).
 * The store's connections are its own ({@link ConnectionPool}); the client's settings (credentials, TLS, timeouts,
 * client resources) are the application's.
 */
final class StandaloneRouter implements Router {

	private final ConnectionPool<StatefulRedisConnection<byte[], byte[]>> pool;

	private final NodeState node;

	/** How long a retired connection's commands already written may take to be answered before it is closed anyway. */
	private static final long DRAIN_MILLIS = 2_000;

	/**
	 * @param client the application's client, whose default URI names the server or the sentinels
	 * @param sentinel whether the client follows a Sentinel-monitored primary (a topology with replicas)
	 * @param connector the thread that opens connections (Lettuce's {@code connect} blocks)
	 */
	StandaloneRouter(RedisClient client, boolean sentinel, ExecutorService connector, int maxConnections) {
		this.pool = new ConnectionPool<>(() -> CompletableFuture.supplyAsync(() -> client.connect(ByteArrayCodec.INSTANCE),
				connector), StatefulRedisConnection::isOpen, StatefulRedisConnection::closeAsync, maxConnections);
		this.node = new NodeState(sentinel ? "sentinel primary" : "primary", sentinel);
	}

	@Override
	public Route route(byte[] firstKey, long deadlineMs) throws ScriptFailure {
		ConnectionPool.Loan<StatefulRedisConnection<byte[], byte[]>> loan = this.pool.borrow(deadlineMs);
		return new Route(loan.connection().async(), loan.connection(), this.node, true, () -> this.pool.release(loan),
				() -> this.pool.retire(loan.connection()), this::demoted);
	}

	/**
	 * A connection reached a node that is not a primary: the client reconnected it to a former primary (Lettuce reuses
	 * the address it had when it cannot ask the sentinels), or the node was demoted under it. Every connection is
	 * retired (each closed once the commands already written on it are answered, a PING behind them, at most
	 * {@value #DRAIN_MILLIS} ms): they reach the one primary the same way, and a connection left there would fail a
	 * later call again. The next call opens a new one, for which the client asks the sentinels for the primary again.
	 */
	private void demoted() {
		this.pool.retireAll((connection) -> connection.async().ping(), DRAIN_MILLIS);
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
