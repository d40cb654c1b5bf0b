package io.starintel.lease.bench;

import java.util.Map;
import java.util.TreeMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Server-side counters from {@code INFO commandstats} and {@code INFO cpu}, read on a connection of its own. The
 * {@code INFO} calls themselves are left out of the command counts.
 */
final class RedisCounters implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	RedisCounters(BenchRedis redis) {
		this.client = RedisClient.create(redis.url());
		this.connection = this.client.connect();
	}

	/** Calls per command (lower-case name, {@code info} excluded) and the server's user+sys CPU seconds. */
	Snapshot snapshot() {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : this.connection.sync().info("commandstats").split("\r?\n")) {
			// cmdstat_evalsha:calls=2000,usec=...,usec_per_call=...,rejected_calls=0,failed_calls=0
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				int start = line.indexOf("calls=") + "calls=".length();
				int end = line.indexOf(',', start);
				if (!name.equals("info")) {
					calls.put(name, Long.parseLong(line.substring(start, (end > 0) ? end : line.length())));
				}
			}
		}
		double cpu = 0;
		for (String line : this.connection.sync().info("cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return new Snapshot(calls, cpu);
	}

	/** The server's {@code redis_version} from {@code INFO server}, or {@code ?}. */
	String version() {
		for (String line : this.connection.sync().info("server").split("\r?\n")) {
			if (line.startsWith("redis_version:")) {
				return line.substring("redis_version:".length()).trim();
			}
		}
		return "?";
	}

	/** The server's {@code used_memory_human} from {@code INFO memory}, or {@code ?}. */
	String memory() {
		for (String line : this.connection.sync().info("memory").split("\r?\n")) {
			if (line.startsWith("used_memory_human:")) {
				return line.substring("used_memory_human:".length()).trim();
			}
		}
		return "?";
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

	/**
	 * The commands of a call count that are not the clients': {@code replconf}, the replica's acknowledgements of the
	 * replication stream (one per {@code WAIT} and about one per second), listed by command but not counted.
	 */
	static long clientCommands(Map<String, Long> calls) {
		return calls.entrySet().stream().filter((e) -> !e.getKey().equals("replconf")).mapToLong(Map.Entry::getValue).sum();
	}

	/** One reading. */
	record Snapshot(Map<String, Long> calls, double cpuSeconds) {

		/** Per-command calls since an earlier reading. */
		Map<String, Long> callsSince(Snapshot earlier) {
			Map<String, Long> delta = new TreeMap<>();
			this.calls.forEach((name, n) -> {
				long d = n - earlier.calls.getOrDefault(name, 0L);
				if (d != 0) {
					delta.put(name, d);
				}
			});
			return delta;
		}

	}

}
