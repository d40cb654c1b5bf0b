package io.starintel.lease.store.redis.internal;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Where one call goes: the commands of a connection to the primary that serves the call's slot, what the executor
 * knows of that primary, whether a replica wait can be sent there (the connection talks to that one node), how to
 * give the connection back once the call's last command has completed, and how to retire it. {@code connection}: the
 * stateful connection the commands go out on (the one whose drops {@link ConnectionDrops} reports), or null when
 * unknown. {@code retire}: closes the store's connection the commands went out on and keeps it from later calls
 * (a no-op for a connection the store does not own). {@code demoted}: the node the connection reached is not a
 * primary (a replica): on standalone and Sentinel every connection of the store (they should reach the one primary,
 * and the client reconnected them the same way) is kept from later calls at once and closed once the commands already
 * written on it are answered; on a cluster the client reads the topology again; a no-op for a connection the store
 * does not own.
 */
record Route(RedisClusterAsyncCommands<byte[], byte[]> commands, @Nullable Object connection, NodeState node,
		boolean supportsWait, Runnable release, Runnable retire, Runnable demoted) {

	/** Nothing to retire: a connection the store does not own. */
	static final Runnable NOT_OWNED = () -> {
	};

}
