package io.starintel.lease.store.redis.internal;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Where one call goes: the commands of a connection to the primary that serves the call's slot, what the executor
 * knows of that primary, whether a replica wait can be sent there (the connection talks to that one node), how to
 * give the connection back once the call's last command has completed, and how to retire it. {@code connection}: the
 * stateful connection the commands go out on (the one whose drops {@link ConnectionDrops} reports), or null when
 * unknown. {@code retire}: closes the store's connection the commands went out on and keeps it from later calls
 * (a no-op for a connection the store does not own).
 */
record Route(RedisClusterAsyncCommands<byte[], byte[]> commands, @Nullable Object connection, NodeState node,
		boolean supportsWait, Runnable release, Runnable retire) {

	/** Nothing to retire: a connection the store does not own. */
	static final Runnable NOT_OWNED = () -> {
	};

}
