package io.starintel.lease.bench;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The bare fenced reference: one EVALSHA per operation on one shared Lettuce connection. Acquire: {@code EXISTS}
 * lease, else {@code INCR} the fencing counter, {@code SET} the lease {@code PX} and {@code SET} an idempotency record
 * {@code PX}. Release: {@code GET} the lease and {@code DEL} it if it is ours. Eight Redis commands per cycle.
 *
 * <p>{@code reference-wait} (a run with a replica, {@code scripts/bench.sh --replica}): the same scripts, each
 * followed by {@code WAIT 1 10000} pipelined on the same connection ({@link ReplicaWait}), as the store sends its
 * replica wait; WAIT blocks its connection, so each thread has a connection of its own. Ten commands per cycle.
 */
final class ReferenceLibrary implements LockLibrary {

	static final String ACQUIRE = """
			-- bare fenced acquire
			-- KEYS[1] lease, KEYS[2] fencing counter, KEYS[3] idempotency record of this request
			-- ARGV[1] lease id (the holder's value), ARGV[2] ttl ms, ARGV[3] idempotency retention ms
			-- reply: the fencing token (> 0) when acquired, 0 when a lease is active
			if redis.call('EXISTS', KEYS[1]) == 1 then
			  return 0
			end
			local token = redis.call('INCR', KEYS[2])
			redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
			redis.call('SET', KEYS[3], token, 'PX', ARGV[3])
			return token
			""";

	static final String RELEASE = """
			-- compare-and-delete release
			-- KEYS[1] lease; ARGV[1] lease id of the holder releasing
			-- reply: 1 when released, 0 when the lease is not (or no longer) ours
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('DEL', KEYS[1])
			end
			return 0
			""";

	private static final String TTL_MS = "30000";

	private static final String IDEMPOTENCY_RETENTION_MS = "60000";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final String acquireSha;

	private final String releaseSha;

	private final String cell;

	private final boolean waitForReplica;

	private final List<StatefulRedisConnection<String, String>> threadConnections = new CopyOnWriteArrayList<>();

	ReferenceLibrary(BenchRedis redis, String cell, boolean waitForReplica) {
		this.cell = cell;
		this.waitForReplica = waitForReplica;
		if (waitForReplica) {
			ReplicaWait.requireReplica(redis, "reference-wait");
		}
		this.client = RedisClient.create(redis.url());
		this.connection = this.client.connect();
		RedisCommands<String, String> commands = this.connection.sync();
		this.acquireSha = commands.scriptLoad(ACQUIRE);
		this.releaseSha = commands.scriptLoad(RELEASE);
	}

	@Override
	public LockCycle open(String key, int thread) {
		if (this.waitForReplica) {
			return waitingCycle(key, thread);
		}
		RedisCommands<String, String> commands = this.connection.sync();
		String tag = "{bench:" + this.cell + ":" + key + "}";
		String[] acquireKeys = { tag + ":lease", tag + ":fence", "" };
		String[] releaseKeys = { tag + ":lease" };
		String idempotencyPrefix = tag + ":idem:" + thread + ":";
		String leasePrefix = "lease-" + thread + "-";
		long[] counter = { 0 };
		return () -> {
			long n = counter[0]++;
			String leaseId = leasePrefix + n;
			String[] keys = acquireKeys.clone();
			keys[2] = idempotencyPrefix + n;
			Long token = commands.evalsha(this.acquireSha, ScriptOutputType.INTEGER, keys, leaseId, TTL_MS,
					IDEMPOTENCY_RETENTION_MS);
			if (token == null || token == 0L) {
				return false;
			}
			Long released = commands.evalsha(this.releaseSha, ScriptOutputType.INTEGER, releaseKeys, leaseId);
			if (released == null || released != 1L) {
				throw new IllegalStateException("reference release refused");
			}
			return true;
		};
	}

	/** The same cycle, each script followed by a pipelined {@code WAIT 1}, on a connection of this thread's own. */
	private LockCycle waitingCycle(String key, int thread) {
		StatefulRedisConnection<String, String> own = this.client.connect();
		this.threadConnections.add(own);
		ReplicaWait wait = new ReplicaWait(own.async());
		String tag = "{bench:" + this.cell + ":" + key + "}";
		String[] releaseKeys = { tag + ":lease" };
		String idempotencyPrefix = tag + ":idem:" + thread + ":";
		String leasePrefix = "lease-" + thread + "-";
		long[] counter = { 0 };
		return () -> {
			long n = counter[0]++;
			String leaseId = leasePrefix + n;
			String[] keys = { tag + ":lease", tag + ":fence", idempotencyPrefix + n };
			Long token = wait.evalsha(this.acquireSha, keys, leaseId, TTL_MS, IDEMPOTENCY_RETENTION_MS);
			if (token == null || token == 0L) {
				return false;
			}
			Long released = wait.evalsha(this.releaseSha, releaseKeys, leaseId);
			if (released == null || released != 1L) {
				throw new IllegalStateException("reference release refused");
			}
			return true;
		};
	}

	@Override
	public void close() {
		this.threadConnections.forEach(StatefulRedisConnection::close);
		this.connection.close();
		this.client.shutdown();
	}

}
