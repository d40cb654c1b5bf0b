package io.starintel.lease.store.redis.internal;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * The one home of the Lettuce calls whose API differs between Lettuce 6.x (Spring Boot 4.0) and 7.x (Spring Boot
 * 4.1): the open check goes through {@code StatefulConnection.isOpen()}, present in both, because
 * {@code BaseRedisAsyncCommands.isOpen()} is gone in Lettuce 7. Not API: used by the store and the fenced writers.
 */
public final class LettuceConnections {

	private LettuceConnections() {
	}

	/** Whether the connection behind the commands is open. */
	public static boolean isOpen(RedisClusterAsyncCommands<?, ?> commands) {
		if (commands instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection().isOpen();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return cluster.getStatefulConnection().isOpen();
		}
		return true; // unknown command interface: the submission itself answers
	}

}
