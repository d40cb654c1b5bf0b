package io.starintel.lease.store.redis.internal;


import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The connection factory's own Lettuce connection, for a factory whose client the store cannot open connections
 * from (a static primary/replica set-up, a factory that is not Spring Data Redis's Lettuce factory). A replica wait
 * is sent there only on a standalone connection (a cluster connection would route it to any node).
 */
final class FactoryRouter implements Router {

	private static final Logger logger = LoggerFactory.getLogger(FactoryRouter.class);

	private final RedisConnectionFactory factory;

	private final NodeState node = new NodeState("factory connection", false);

	private final ConnectionDrops drops;

	/** Whether the factory's client is watched already (once: not on every call). */
	private volatile boolean watching;

	FactoryRouter(RedisConnectionFactory factory, ConnectionDrops drops) {
		this.factory = factory;
		this.drops = drops;
	}

	@Override
	public Route route(byte[] firstKey, long deadlineMs) throws ScriptFailure {
		RedisConnection connection;
		try {
			connection = this.factory.getConnection();
		}
		catch (RuntimeException ex) {
			logger.debug("Lease backend connection failed: {}", ex.getClass().getSimpleName());
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "no connection");
		}
		try {
			RedisClusterAsyncCommands<byte[], byte[]> commands = nativeCommands(connection);
			if (!LettuceConnections.isOpen(commands)) {
				throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "connection not open");
			}
			// a replica wait is sent only on a standalone connection, whose drops are watched on the factory's client
			if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
				return new Route(commands, standalone.getStatefulConnection(), this.node, watchFactoryClient(),
						() -> closeQuietly(connection), Route.NOT_OWNED, Route.NOT_OWNED);
			}
			return new Route(commands, null, this.node, false, () -> closeQuietly(connection), Route.NOT_OWNED,
					Route.NOT_OWNED);
		}
		catch (ScriptFailure | RuntimeException ex) {
			closeQuietly(connection);
			if (ex instanceof ScriptFailure failure) {
				throw failure;
			}
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "no native connection");
		}
	}

	@SuppressWarnings("unchecked")
	private static RedisClusterAsyncCommands<byte[], byte[]> nativeCommands(RedisConnection connection)
			throws ScriptFailure {
		if (!(connection instanceof LettuceConnection lettuce)) {
			throw new ScriptFailure(ScriptFailure.Kind.NOT_SUBMITTED, "not a Lettuce connection");
		}
		return lettuce.getNativeConnection();
	}

	/** Watches the drops of the factory's client's connections (the factory is started once it lent one). */
	private boolean watchFactoryClient() {
		if (this.watching) {
			return true;
		}
		if (this.factory instanceof LettuceConnectionFactory lettuce) {
			try {
				this.drops.watch(lettuce.getNativeClient());
				this.watching = true;
				return true;
			}
			catch (RuntimeException ex) {
				return false;
			}
		}
		return false;
	}

	private static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing a lease backend connection failed: {}", ex.getClass().getSimpleName());
		}
	}

	@Override
	public void close() {
		// the factory's connection is the factory's
	}

}
