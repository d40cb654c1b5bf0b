package io.starintel.lease.store.redis.internal;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Where one call goes: the commands of a connection to the primary that serves the call's slot, what the executor
 * knows of that primary, whether a replica wait can be sent there (the connection talks to that one node), and how
 * to give the connection back once the call's last command has completed. {@code connection}: the stateful connection
 * the commands go out on (the one whose drops {@link ConnectionDrops} reports), or null when unknown.
 */
record Route(RedisClusterAsyncCommands<byte[], byte[]> commands, @Nullable Object connection, NodeState node,
		boolean supportsWait, Runnable release) {
}
