package io.starintel.lease.bench;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * An {@code EVALSHA} and a {@code WAIT 1 10000} behind it, pipelined on one connection (one round trip, as the store
 * sends its replica wait behind its function call): the bare scripts' {@code -wait} variants. Fewer than one
 * acknowledgement fails the run. The connection must be the calling thread's own: WAIT blocks it.
 */
final class ReplicaWait {

	/** The wait's timeout, ms: the store waits at most the call's remaining time (a 10 s deadline here). */
	static final long TIMEOUT_MS = 10_000;

	private final RedisAsyncCommands<String, String> commands;

	ReplicaWait(RedisAsyncCommands<String, String> commands) {
		this.commands = commands;
	}

	/** Fails with a clear message when a {@code -wait} library runs without a replica. */
	static void requireReplica(BenchRedis redis, String library) {
		if (redis.replica() == null) {
			throw new IllegalArgumentException(library + " needs a replica: bash scripts/bench.sh --replica");
		}
	}

	/** The script's reply, once the replica acknowledged what it wrote. */
	<T> @Nullable T evalsha(String sha, String[] keys, String... args) {
		return evalsha(sha, ScriptOutputType.INTEGER, keys, args);
	}

	/** The script's reply of the given type, once the replica acknowledged what it wrote. */
	<T> @Nullable T evalsha(String sha, ScriptOutputType type, String[] keys, String... args) {
		RedisFuture<T> reply = this.commands.evalsha(sha, type, keys, args);
		RedisFuture<Long> acknowledged = this.commands.waitForReplication(1, TIMEOUT_MS);
		try {
			T value = reply.get(30, TimeUnit.SECONDS);
			Long replicas = acknowledged.get(30, TimeUnit.SECONDS);
			if (replicas == null || replicas < 1) {
				throw new IllegalStateException("WAIT 1: the replica did not acknowledge within " + TIMEOUT_MS + " ms");
			}
			return value;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("EVALSHA + WAIT failed: " + ex, ex);
		}
	}

}
