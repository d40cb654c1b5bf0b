package io.starintel.lease.it.failover;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.test.RedisServerProcess;

import static org.awaitility.Awaitility.await;

/**
 * One primary and one replica of the given kind on loopback ({@link RedisServerProcess}, no persistence), the
 * replica's replication link going through a {@link FaultProxy}: the replica {@code REPLICAOF}s the proxy's port, so
 * the link can be {@link #pauseLink() paused} and {@link #delayLink(Duration) delayed} and the replica lags on
 * demand while clients talk to the primary directly.
 *
 * <p>Faults: {@link #killPrimary()} (kill -9, and the proxy throws away what it still holds, as the dead primary's
 * unsent buffers are lost), {@link #promoteReplica()} ({@code REPLICAOF NO ONE}, as an operator or a sentinel does),
 * {@link #restartDeadNode()} (the killed node comes back empty) and {@link #linkThroughProxy(int)} (make a node a
 * replica of the current primary through a fresh proxy). With a {@link LocalSentinel} monitoring the primary, the
 * sentinel promotes and reconfigures nodes itself: {@link #adoptPrimary(int)} tells the fixture who the primary is
 * now.
 *
 * <p>A sentinel sees that the replica's master address (the proxy) is not the primary's and re-points it at the
 * primary directly ({@code +fix-slave-config}) once the failover timeout has passed since the replica was last
 * re-pointed; {@link #linkThroughProxy(int)} puts it back behind a proxy.
 */
public final class ReplicatedRedis implements AutoCloseable {

	/** Every node: full syncs start at once (no diskless delay), the primary pings its replica every second. */
	private static final String[] NODE_ARGUMENTS = { "--repl-diskless-sync-delay", "0", "--repl-ping-replica-period",
			"1", "--daemonize", "no" };

	private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);

	private final RedisServerKind kind;

	private final Path binary;

	private final Path directory;

	private final int[] ports = new int[2];

	private final RedisServerProcess[] nodes = new RedisServerProcess[2];

	private final NodeAdmin admin = new NodeAdmin();

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final Thread shutdownHook;

	private volatile int primary;

	private volatile FaultProxy link;

	private ReplicatedRedis(RedisServerKind kind) {
		this.kind = kind;
		this.binary = kind.requireServerBinary();
		this.directory = FixtureFiles.newDirectory("starintel-replicated-");
		this.shutdownHook = new Thread(this::stopProcesses, "replicated-redis-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/** Starts a primary and a replica linked through a proxy, and waits until the replica is in sync. */
	public static ReplicatedRedis start(RedisServerKind kind) {
		ReplicatedRedis redis = new ReplicatedRedis(kind);
		try {
			redis.ports[0] = FailoverPorts.node();
			redis.ports[1] = FailoverPorts.node();
			redis.nodes[0] = redis.launch(redis.ports[0]);
			redis.nodes[1] = redis.launch(redis.ports[1]);
			redis.primary = 0;
			redis.linkThroughProxy(redis.ports[1]);
			return redis;
		}
		catch (RuntimeException | Error ex) {
			redis.close();
			throw ex;
		}
	}

	private RedisServerProcess launch(int port) {
		try {
			RedisServerProcess process = RedisServerProcess.start(this.binary, port, this.directory, NODE_ARGUMENTS);
			RedisServers.verify(this.kind, "127.0.0.1", port);
			return process;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not start " + this.binary + " on port " + port, ex);
		}
	}

	public RedisServerKind kind() {
		return this.kind;
	}

	/** The client port of the current primary. */
	public int primaryPort() {
		return this.ports[this.primary];
	}

	/** The client port of the other node (the replica, or the dead former primary). */
	public int replicaPort() {
		return this.ports[1 - this.primary];
	}

	/** Both client ports. */
	public List<Integer> ports() {
		return List.of(this.ports[0], this.ports[1]);
	}

	/** The process of a node. */
	public RedisServerProcess process(int port) {
		return this.nodes[index(port)];
	}

	/** The proxy of the current replication link (null when no replica is linked). */
	public FaultProxy link() {
		return this.link;
	}

	/** Holds the replication stream (both ways) in the proxy: the replica stops receiving, nothing is lost yet. */
	public void pauseLink() {
		requireLink().pause(true);
	}

	/** Forwards the held stream and what follows. */
	public void resumeLink() {
		requireLink().pause(false);
	}

	/** Delays every byte of the replication link by {@code delay}, each way. */
	public void delayLink(Duration delay) {
		requireLink().delay(delay);
	}

	/** How many replicas acknowledged every write so far ({@link NodeAdmin#waitForReplicas}). */
	public long waitForReplicas(int replicas, Duration timeout) {
		return this.admin.waitForReplicas(primaryPort(), "starintel-failover-wait-probe", replicas, timeout);
	}

	/** The primary's replication offset minus the offset its replica acknowledged (bytes; -1 without a replica). */
	public long lagBytes() {
		String info = this.admin.info(primaryPort(), "replication");
		long offset = Long.parseLong(NodeAdmin.field(info, "master_repl_offset").orElse("0"));
		return NodeAdmin.field(info, "slave0")
			.map((slave) -> offset - Long.parseLong(slave.replaceAll(".*offset=(\\d+).*", "$1")))
			.orElse(-1L);
	}

	/**
	 * Kills the primary with SIGKILL and cuts the link, throwing away what the proxy still held: the replica keeps
	 * exactly what it had received.
	 */
	public void killPrimary() {
		this.nodes[this.primary].kill();
		FaultProxy current = this.link;
		if (current != null) {
			try {
				current.cut();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			await("the link's held stream thrown away").atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> current.heldBytes() == 0);
		}
	}

	/** {@code REPLICAOF NO ONE} on the replica (what an operator or a sentinel does), which becomes the primary. */
	public void promoteReplica() {
		int replica = replicaPort();
		this.admin.on(replica, (node) -> node.replicaofNoOne());
		await("node " + replica + " promoted").atMost(SYNC_TIMEOUT)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> this.admin.info(replica, "replication").contains("role:master"));
		adoptPrimary(replica);
	}

	/**
	 * The node on {@code port} is the primary now (a sentinel promoted it): the fixture's roles follow, and the old
	 * link's proxy (to the former primary) is closed.
	 */
	public void adoptPrimary(int port) {
		int index = index(port);
		if (index != this.primary || this.link != null && !this.link.target().equals(address(port))) {
			this.primary = index;
			closeLink();
		}
	}

	/** Starts the dead node again, empty (no persistence), on its port; it comes back as a primary of nothing. */
	public int restartDeadNode() {
		for (int i = 0; i < 2; i++) {
			if (!this.nodes[i].isAlive()) {
				try {
					this.nodes[i].restartEmpty();
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
				RedisServers.verify(this.kind, "127.0.0.1", this.ports[i]);
				return this.ports[i];
			}
		}
		throw new IllegalStateException("no dead node");
	}

	/**
	 * Makes the node on {@code replicaPort} a replica of the current primary through a fresh proxy (the previous
	 * link's proxy is closed) and waits until it is in sync ({@code WAIT 1} answers 1).
	 */
	public void linkThroughProxy(int replicaPort) {
		if (replicaPort == primaryPort()) {
			throw new IllegalArgumentException("node " + replicaPort + " is the primary");
		}
		FaultProxy proxy;
		try {
			proxy = new FaultProxy(address(primaryPort()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.proxies.add(proxy);
		closeLink();
		this.link = proxy;
		this.admin.on(replicaPort, (node) -> node.replicaof("127.0.0.1", proxy.port()));
		awaitInSync();
	}

	/**
	 * Makes the node on {@code replicaPort} a replica of the current primary directly (no proxy, the link a sentinel
	 * configures itself) and waits until it is in sync. For a replica that a forced {@code SENTINEL FAILOVER} is to
	 * promote next: a replica linked through a proxy reports a master the sentinels do not know, and a sentinel that
	 * has not heard of the promotion yet may "fix" it from its older {@code INFO} ({@code REPLICAOF} the former
	 * primary) after it was promoted; the sentinels then see their new master report itself a replica and fail over
	 * back (seen once in CI: the node promoted back was a replica of the former primary again 11 s later).
	 */
	public void linkDirectly(int replicaPort) {
		if (replicaPort == primaryPort()) {
			throw new IllegalArgumentException("node " + replicaPort + " is the primary");
		}
		closeLink();
		int primary = primaryPort();
		this.admin.on(replicaPort, (node) -> node.replicaof("127.0.0.1", primary));
		awaitInSync();
	}

	/**
	 * Turns the former primary, still running after a promotion, into a replica of the new primary (through a fresh
	 * proxy) and disconnects its clients, as Sentinel does ({@code REPLICAOF} + {@code CLIENT KILL TYPE normal}) but
	 * at once: Sentinel converts a demoted primary that still reports itself a master only some 8 s after the
	 * promotion, and until then clients that stay connected to it keep writing there (and lose it all with the
	 * resynchronization).
	 */
	public void demoteFormerPrimary(int formerPort) {
		linkThroughProxy(formerPort);
		this.admin.on(formerPort, (node) -> node.clientKill(io.lettuce.core.KillArgs.Builder.typeNormal()));
	}

	/** Waits until the replica's link is up and {@code WAIT 1} on the primary answers 1. */
	public void awaitInSync() {
		int replica = replicaPort();
		try {
			await("node " + replica + " in sync with " + primaryPort()).atMost(SYNC_TIMEOUT)
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptions()
				.until(() -> this.admin.info(replica, "replication").contains("master_link_status:up")
						&& waitForReplicas(1, Duration.ofMillis(200)) >= 1);
		}
		catch (org.awaitility.core.ConditionTimeoutException ex) {
			throw new IllegalStateException(ex.getMessage() + "; replica: " + describe(replica) + "; primary: "
					+ describe(primaryPort()) + "; link proxy: " + (this.link == null ? "none"
							: this.link.port() + " -> " + this.link.target().getPort() + ", failed connects "
									+ this.link.failedConnects()), ex);
		}
	}

	private String describe(int port) {
		return this.admin.tryOn(port, (node) -> node.info("replication"))
			.map((info) -> info.lines()
				.filter((line) -> line.startsWith("role") || line.startsWith("master_") || line.startsWith("slave")
						|| line.startsWith("connected"))
				.toList()
				.toString())
			.orElse("(does not answer)") + " log tail: " + tail(process(port).log());
	}

	private static String tail(String log) {
		String[] lines = log.split("\n");
		return String.join(" | ", java.util.Arrays.asList(lines).subList(Math.max(0, lines.length - 8), lines.length));
	}

	/** Runs a command on a node directly. */
	public <T> T on(int port, java.util.function.Function<io.lettuce.core.api.sync.RedisCommands<String, String>, T> call) {
		return this.admin.on(port, call);
	}

	/** {@code INFO section} of a node. */
	public String info(int port, String section) {
		return this.admin.info(port, section);
	}

	/** Whether the node on {@code port} answers and reports {@code role:master}. */
	public boolean isPrimary(int port) {
		return this.admin.tryOn(port, (node) -> node.info("replication")).map((info) -> info.contains("role:master"))
			.orElse(false);
	}

	/** A factory on the current primary, directly (no sentinel): it does not follow a promotion. */
	public FailoverClients.Client primaryClient() {
		return FailoverClients.standalone(primaryPort());
	}

	private FaultProxy requireLink() {
		FaultProxy current = this.link;
		if (current == null) {
			throw new IllegalStateException("no replica is linked through a proxy");
		}
		return current;
	}

	private void closeLink() {
		FaultProxy current = this.link;
		this.link = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
	}

	private int index(int port) {
		if (port == this.ports[0]) {
			return 0;
		}
		if (port == this.ports[1]) {
			return 1;
		}
		throw new IllegalArgumentException("no node on port " + port);
	}

	private static InetSocketAddress address(int port) {
		return new InetSocketAddress("127.0.0.1", port);
	}

	private void stopProcesses() {
		for (RedisServerProcess node : this.nodes) {
			if (node != null) {
				node.kill();
			}
		}
	}

	/** Closes the proxies, kills both servers, removes the files and gives the ports back. */
	@Override
	public void close() {
		for (FaultProxy proxy : this.proxies) {
			try {
				proxy.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
		stopProcesses();
		this.admin.close();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down: the hook runs anyway
		}
		FixtureFiles.delete(this.directory);
		FailoverPorts.release(this.ports);
	}

}
