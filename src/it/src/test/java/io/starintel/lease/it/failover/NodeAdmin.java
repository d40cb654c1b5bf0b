package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

/**
 * Direct, short-lived administrative connections to single nodes and sentinels of a fixture (never through a
 * proxy, never cluster-aware, no automatic reconnect): one connection per call, so a killed or frozen node costs
 * one bounded timeout and leaves nothing behind.
 */
final class NodeAdmin implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	private final RedisClient client;

	NodeAdmin() {
		this.client = RedisClient.create();
		this.client.setOptions(ClientOptions.builder()
			.autoReconnect(false)
			.socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
			.build());
	}

	/** Runs {@code call} on a fresh connection to {@code 127.0.0.1:port}. */
	<T> T on(int port, Function<RedisCommands<String, String>, T> call) {
		try (StatefulRedisConnection<String, String> connection = this.client
			.connect(RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(TIMEOUT).build())) {
			return call.apply(connection.sync());
		}
	}

	/** Like {@link #on}, but empty when the node cannot be reached or fails the call. */
	<T> Optional<T> tryOn(int port, Function<RedisCommands<String, String>, T> call) {
		try {
			return Optional.ofNullable(on(port, call));
		}
		catch (RuntimeException ex) {
			return Optional.empty();
		}
	}

	/** Runs {@code call} on a fresh connection to the sentinel at {@code 127.0.0.1:port}. */
	<T> T onSentinel(int port, Function<RedisSentinelCommands<String, String>, T> call) {
		try (StatefulRedisSentinelConnection<String, String> connection = this.client
			.connectSentinel(RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(TIMEOUT).build())) {
			return call.apply(connection.sync());
		}
	}

	/**
	 * How many replicas of the primary on {@code port} have acknowledged everything written to it so far:
	 * {@code SET probeKey} then {@code WAIT replicas timeout} on the same connection. (A bare {@code WAIT} on a
	 * connection that wrote nothing counts replicas against offset 0: Valkey then answers at once with every
	 * replica, lagging or not.) In a cluster, {@code probeKey} must hash to a slot the node serves.
	 */
	long waitForReplicas(int port, String probeKey, int replicas, Duration timeout) {
		return on(port, (node) -> {
			node.set(probeKey, Long.toString(System.currentTimeMillis()));
			return node.waitForReplication(replicas, timeout.toMillis());
		});
	}

	/** {@code INFO section} of a node. */
	String info(int port, String section) {
		return on(port, (node) -> node.info(section));
	}

	/** A field of an {@code INFO} answer, or empty. */
	static Optional<String> field(String info, String name) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(name + ":")) {
				return Optional.of(line.substring(name.length() + 1).trim());
			}
		}
		return Optional.empty();
	}

	@Override
	public void close() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

}
