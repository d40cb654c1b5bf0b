package io.starintel.lease.it.failover;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.test.RedisServerProcess;

import static org.awaitility.Awaitility.await;

/**
 * One to three sentinels ({@code redis-server --sentinel}, or {@code valkey-server --sentinel}: the same binary as
 * the monitored servers) on ports {@code 26379..26399}, monitoring a {@link ReplicatedRedis} primary as
 * {@value #MASTER} with down-after 1 s, quorum 1 for one sentinel and 2 for more, and a configurable failover
 * timeout: a kill -9 of the primary leads to an automatic promotion of the replica, {@link #failover()} forces one
 * ({@code SENTINEL FAILOVER}, which does not wait for the replica to catch up), and Sentinel clients
 * ({@link #client()}) follow the new primary.
 *
 * <p>Quorum 2 of three: one sentinel that misses the primary's replies for a second (a loaded machine) must not
 * start a failover alone, since its peers give their vote to whichever sentinel asks first. With quorum 1,
 * {@code LocalSentinelTests} once (CI, 2026-12-06) found the node it had just demoted primary again and the promoted
 * one its replica; a failover from such a lone view is the suspected cause (the sentinels' logs were not kept).
 *
 * <p>The failover timeout also bounds how often Sentinel starts an automatic failover of the same master (not
 * within twice the timeout of the previous one) and when it re-points a replica whose master address is not the
 * primary's (a replica behind a proxy): choose it longer than the window in which a test needs the replica behind
 * its proxy.
 */
public final class LocalSentinel implements AutoCloseable {


	/** The monitored master's name. */
	public static final String MASTER = "starintel-failover";

	private static final Duration DOWN_AFTER = Duration.ofSeconds(1);

	private final RedisServerKind kind;

	private final Path directory;

	private final List<RedisServerProcess> sentinels = new ArrayList<>();

	private final List<Integer> ports = new ArrayList<>();

	private final NodeAdmin admin = new NodeAdmin();

	private final Thread shutdownHook;

	private Duration failoverTimeout = Duration.ofSeconds(30);

	private LocalSentinel(RedisServerKind kind) {
		this.kind = kind;
		this.directory = FixtureFiles.newDirectory("starintel-sentinel-");
		this.shutdownHook = new Thread(this::stopProcesses, "local-sentinel-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/** {@code count} sentinels monitoring the primary of {@code redis}, failover timeout 30 s. */
	public static LocalSentinel start(ReplicatedRedis redis, int count) {
		return start(redis, count, Duration.ofSeconds(30));
	}

	/**
	 * Starts {@code count} (1-3) sentinels monitoring the primary of {@code redis} and waits until each one knows the
	 * primary and its replica (and, with more than one, the other sentinels).
	 */
	public static LocalSentinel start(ReplicatedRedis redis, int count, Duration failoverTimeout) {
		if (count < 1 || count > 3) {
			throw new IllegalArgumentException("1 to 3 sentinels");
		}
		LocalSentinel sentinel = new LocalSentinel(redis.kind());
		sentinel.failoverTimeout = failoverTimeout;
		try {
			Path binary = redis.kind().requireServerBinary();
			for (int i = 0; i < count; i++) {
				int port = FailoverPorts.sentinel();
				sentinel.ports.add(port);
				Path config = sentinel.directory.resolve("sentinel-" + port + ".conf");
				Files.writeString(config, String.join("\n", "sentinel monitor " + MASTER + " 127.0.0.1 "
						+ redis.primaryPort() + " " + Math.min(count, 2),
						"sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER.toMillis(),
						"sentinel failover-timeout " + MASTER + " " + failoverTimeout.toMillis(),
						"sentinel parallel-syncs " + MASTER + " 1", ""));
				sentinel.sentinels.add(RedisServerProcess.startWithConfigFile(binary, config, port, sentinel.directory,
						"--sentinel", "--daemonize", "no"));
			}
			sentinel.awaitReady(count);
			return sentinel;
		}
		catch (IOException ex) {
			sentinel.close();
			throw new UncheckedIOException(ex);
		}
		catch (RuntimeException | Error ex) {
			sentinel.close();
			throw ex;
		}
	}

	private void awaitReady(int count) {
		await("sentinels know the primary, its replica and each other").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptions()
			.until(() -> {
				for (int port : this.ports) {
					boolean ready = this.admin.onSentinel(port, (sentinel) -> {
						var master = sentinel.master(MASTER);
						return Integer.parseInt(master.get("num-slaves")) >= 1
								&& Integer.parseInt(master.get("num-other-sentinels")) >= count - 1
								&& !master.get("flags").contains("down");
					});
					if (!ready) {
						return false;
					}
				}
				return true;
			});
	}

	/** The sentinels' ports. */
	public List<Integer> ports() {
		return List.copyOf(this.ports);
	}

	/** The master's port as the first answering sentinel reports it. */
	public Optional<Integer> masterPort() {
		for (int port : this.ports) {
			Optional<SocketAddress> address = tryMasterAddress(port);
			if (address.isPresent()) {
				return address.map((a) -> ((InetSocketAddress) a).getPort());
			}
		}
		return Optional.empty();
	}

	private Optional<SocketAddress> tryMasterAddress(int sentinelPort) {
		try {
			return Optional.ofNullable(this.admin.onSentinel(sentinelPort, (s) -> s.getMasterAddrByName(MASTER)));
		}
		catch (RuntimeException ex) {
			return Optional.empty();
		}
	}

	/**
	 * {@code SENTINEL FAILOVER}: promotes the replica now, without waiting for it to catch up. Retries (at most 30 s)
	 * while Sentinel refuses: {@code INPROG} (after a promotion Sentinel keeps the failover open while it
	 * reconfigures the other replicas, up to the failover timeout) or {@code NOGOODSLAVE} (a replica that was just
	 * restarted or re-pointed is promotable only once Sentinel has refreshed its {@code INFO}, every 10 s).
	 */
	public void failover() {
		long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (true) {
			try {
				this.admin.onSentinel(this.ports.get(0), (sentinel) -> sentinel.failover(MASTER));
				return;
			}
			catch (io.lettuce.core.RedisCommandExecutionException ex) {
				String message = String.valueOf(ex.getMessage());
				boolean refusedForNow = message.startsWith("INPROG") || message.startsWith("NOGOODSLAVE");
				if (!refusedForNow || System.nanoTime() > until) {
					throw ex;
				}
			}
			FailoverLoadRun.sleep(200);
		}
	}

	/**
	 * Forces a failover away from {@code formerPrimaryPort} and waits for it: a forced failover that Sentinel starts
	 * but aborts (the chosen replica did not turn primary within the failover timeout) promotes nobody, so the
	 * failover is asked again until {@code timeout}. Returns the promoted port.
	 */
	public int failoverAndAwait(ReplicatedRedis redis, int formerPrimaryPort, Duration timeout) {
		long until = System.nanoTime() + timeout.toNanos();
		while (true) {
			failover();
			Duration left = Duration.ofNanos(Math.max(until - System.nanoTime(), 0));
			// Sentinel aborts a failover whose replica does not turn primary within the failover timeout
			Duration perAttempt = this.failoverTimeout.multipliedBy(3);
			Duration attempt = left.compareTo(perAttempt) < 0 ? left : perAttempt;
			try {
				return awaitPromotion(redis, formerPrimaryPort, attempt);
			}
			catch (org.awaitility.core.ConditionTimeoutException ex) {
				if (System.nanoTime() >= until) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Waits until every sentinel reports a master other than {@code formerPrimaryPort} and that node answers as a
	 * primary; tells {@code redis} and returns the new primary's port.
	 */
	public int awaitPromotion(ReplicatedRedis redis, int formerPrimaryPort, Duration timeout) {
		int[] promoted = new int[1];
		await("sentinels promote a node other than " + formerPrimaryPort).atMost(timeout)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				Integer seen = null;
				for (int port : this.ports) {
					Optional<SocketAddress> address = tryMasterAddress(port);
					if (address.isEmpty()) {
						return false;
					}
					int master = ((InetSocketAddress) address.get()).getPort();
					if (master == formerPrimaryPort || seen != null && seen != master) {
						return false;
					}
					seen = master;
				}
				promoted[0] = seen;
				return redis.isPrimary(seen);
			});
		redis.adoptPrimary(promoted[0]);
		return promoted[0];
	}

	/**
	 * {@code SENTINEL SET down-after-milliseconds} on every sentinel: how long a node must miss replies before a
	 * sentinel calls it down (and, with the quorum agreeing, fails it over). A test that forces its next failover
	 * itself lengthens it, so that a node that stalls for a second on a loaded machine is not failed over
	 * automatically behind the test's back.
	 */
	public void downAfter(Duration downAfter) {
		for (int port : this.ports) {
			this.admin.onSentinel(port,
					(sentinel) -> sentinel.set(MASTER, "down-after-milliseconds", Long.toString(downAfter.toMillis())));
		}
	}

	/**
	 * Makes every sentinel monitor the node on {@code port} as {@value #MASTER} from now on ({@code SENTINEL REMOVE},
	 * {@code SENTINEL MONITOR} and the fixture's settings): for a test that swaps the roles of its nodes itself
	 * (no failover of Sentinel's, which would disconnect the clients of the demoted node) and wants Sentinel clients
	 * that ask the sentinels again to find the new primary.
	 */
	public void monitor(int port) {
		for (int sentinelPort : this.ports) {
			this.admin.onSentinel(sentinelPort, (sentinel) -> {
				sentinel.remove(MASTER);
				sentinel.monitor(MASTER, "127.0.0.1", port, Math.min(this.ports.size(), 2));
				sentinel.set(MASTER, "down-after-milliseconds", Long.toString(DOWN_AFTER.toMillis()));
				return sentinel.set(MASTER, "failover-timeout", Long.toString(this.failoverTimeout.toMillis()));
			});
		}
		await("sentinels report " + port + " as the master").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> masterPort().orElse(-1) == port);
	}

	/** Waits until the sentinels have turned {@code port} into a replica of the current master (it answers so). */
	public void awaitReplica(ReplicatedRedis redis, int port, Duration timeout) {
		await("node " + port + " turned into a replica by the sentinels").atMost(timeout)
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptions()
			.until(() -> redis.info(port, "replication").contains("role:slave"));
	}

	/** A started Sentinel-configured factory ({@code RedisSentinelConfiguration}) that follows promotions. */
	public FailoverClients.Client client() {
		return FailoverClients.sentinel(MASTER, this.ports);
	}

	/** The sentinels' logs (for failure messages). */
	public String logs() {
		StringBuilder logs = new StringBuilder();
		for (RedisServerProcess sentinel : this.sentinels) {
			logs.append("--- sentinel ").append(sentinel.port()).append('\n').append(sentinel.log());
		}
		return logs.toString();
	}

	public RedisServerKind kind() {
		return this.kind;
	}

	private void stopProcesses() {
		this.sentinels.forEach(RedisServerProcess::kill);
	}

	@Override
	public void close() {
		stopProcesses();
		this.admin.close();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down: the hook runs anyway
		}
		FixtureFiles.delete(this.directory);
		this.ports.forEach(FailoverPorts::release);
	}

}
