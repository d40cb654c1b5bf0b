package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.lettuce.core.KillArgs;
import io.lettuce.core.cluster.SlotHash;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.it.redis.LocalRedisCluster;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.test.RedisServerProcess;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * A Redis (or Valkey) Cluster of 3 primaries and 3 replicas on loopback ports {@code 7100..7199}
 * ({@link LocalRedisCluster} with one replica per primary), node timeout 2 s and replicas always eligible for
 * promotion ({@code cluster-replica-validity-factor 0}), with the faults of the failover suites.
 *
 * <p>Cluster replication cannot go through a proxy (a replica connects to the address its primary announces on the
 * cluster bus, which is also the address clients use), so a replica lags in one of two ways:
 * <ul>
 * <li>{@link #freeze(int) frozen} (SIGSTOP): the link stays up and the primary keeps streaming, but nothing is
 * acknowledged ({@code WAIT} answers 0). The kernel's socket buffers still take several MB of stream, which the
 * replica applies when it runs again; {@link #buildLag} therefore writes filler into the program's slot until the
 * primary itself holds replication output ({@code omem} of the replica's client), so that what is written next is
 * lost with a kill -9 of the primary.</li>
 * <li>{@link #cutReplicaLink(int) cut}: the replica gets a wrong {@code masterauth} and its link is killed on the
 * primary, so it cannot resynchronize; the primary reports no connected replica, and everything written meanwhile
 * is lost by a promotion ({@code CLUSTER FAILOVER FORCE}, or a kill -9 of the primary).
 * {@link #restoreReplicaLink(int)} lets it resynchronize.</li>
 * </ul>
 * Promotions: {@link #kill(int) kill -9} of a primary (automatic promotion of its replica after the node timeout),
 * {@link #failoverGracefully(int, Duration) CLUSTER FAILOVER} (graceful: the replica catches up first) and
 * {@code CLUSTER FAILOVER FORCE} (the replica takes over at once).
 */
public final class ReplicatedCluster implements AutoCloseable {

	private static final String CUT_PASSWORD = "starintel-failover-cut-link";

	private final LocalRedisCluster cluster;

	private final int basePort;

	private final NodeAdmin admin = new NodeAdmin();

	private ReplicatedCluster(LocalRedisCluster cluster, int basePort) {
		this.cluster = cluster;
		this.basePort = basePort;
	}

	/** Starts the cluster (3 primaries, 3 replicas) and waits until every replica is in sync. */
	public static ReplicatedCluster start(RedisServerKind kind) {
		int base = FailoverPorts.nodes(LocalRedisCluster.NODES * 2);
		try {
			LocalRedisCluster cluster = LocalRedisCluster.start(kind, 1, base, "--cluster-node-timeout", "2000",
					"--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0",
					"--repl-ping-replica-period", "1");
			ReplicatedCluster replicated = new ReplicatedCluster(cluster, base);
			replicated.awaitEveryPrimaryReplicated(Duration.ofSeconds(30));
			return replicated;
		}
		catch (RuntimeException | Error ex) {
			releasePorts(base);
			throw ex;
		}
	}

	public RedisServerKind kind() {
		return this.cluster.kind();
	}

	/** Every node's client port. */
	public List<Integer> ports() {
		return this.cluster.ports();
	}

	/** A started cluster-configured factory ({@code RedisClusterConfiguration}) that follows promotions. */
	public FailoverClients.Client client() {
		return FailoverClients.cluster(this.cluster.nodeAddresses());
	}

	/** A started cluster-configured factory without topology refresh (Spring Boot's defaults). */
	public FailoverClients.Client clientWithoutTopologyRefresh() {
		return FailoverClients.clusterWithoutTopologyRefresh(this.cluster.nodeAddresses());
	}

	/** A node as {@code CLUSTER NODES} describes it. */
	public record Node(String id, int port, boolean primary, String primaryId, boolean failed, int slotRanges) {

	}

	/** The cluster as the first reachable (alive, not frozen) node sees it. */
	public List<Node> topology() {
		for (int port : ports()) {
			if (!usable(port)) {
				continue;
			}
			Optional<String> nodes = this.admin.tryOn(port, (node) -> node.clusterNodes());
			if (nodes.isPresent()) {
				return parse(nodes.get());
			}
		}
		throw new IllegalStateException("no node of the cluster answers");
	}

	private static List<Node> parse(String clusterNodes) {
		List<Node> nodes = new ArrayList<>();
		for (String line : clusterNodes.split("\r?\n")) {
			if (line.isBlank()) {
				continue;
			}
			String[] fields = line.trim().split(" ");
			String address = fields[1];
			int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1, address.indexOf('@')));
			String flags = fields[2];
			boolean failed = flags.contains("fail") && !flags.contains("fail?") || flags.contains("noaddr");
			nodes.add(new Node(fields[0], port, flags.contains("master"), fields[3], failed, fields.length - 8));
		}
		return nodes;
	}

	/** The primary that serves the hash slot of the program's keys. */
	public int primaryOf(ProgramScope scope) {
		return primaryOfSlot(slotOf(scope));
	}

	/** The hash slot of every key of a program. */
	public static int slotOf(ProgramScope scope) {
		return SlotHash.getSlot("{" + scope.hashTag() + "}");
	}

	/** The client port of the node that serves {@code slot}, from a live node's {@code CLUSTER SLOTS}. */
	public int primaryOfSlot(int slot) {
		for (int port : ports()) {
			if (!usable(port)) {
				continue;
			}
			Optional<List<Object>> slots = this.admin.tryOn(port, (node) -> node.clusterSlots());
			if (slots.isPresent()) {
				for (Object entry : slots.get()) {
					List<?> range = (List<?>) entry;
					if (slot >= ((Number) range.get(0)).intValue() && slot <= ((Number) range.get(1)).intValue()) {
						return ((Number) ((List<?>) range.get(2)).get(1)).intValue();
					}
				}
			}
		}
		throw new IllegalStateException("no node serves slot " + slot);
	}

	/** The live replica of a primary. */
	public int replicaOf(int primaryPort) {
		List<Node> topology = topology();
		String primaryId = topology.stream()
			.filter((node) -> node.port() == primaryPort)
			.findFirst()
			.orElseThrow()
			.id();
		return topology.stream()
			.filter((node) -> !node.primary() && primaryId.equals(node.primaryId()) && !node.failed())
			.map(Node::port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("primary " + primaryPort + " has no live replica"));
	}

	/** The primaries that serve slots and have a live replica whose link is up. */
	public List<Integer> healthyPrimaries() {
		List<Integer> healthy = new ArrayList<>();
		for (Node node : topology()) {
			if (node.primary() && node.slotRanges() > 0 && !node.failed()) {
				try {
					int replica = replicaOf(node.port());
					if (usable(replica) && this.admin.info(replica, "replication").contains("master_link_status:up")) {
						healthy.add(node.port());
					}
				}
				catch (RuntimeException ex) {
					// no usable replica
				}
			}
		}
		return healthy;
	}

	/**
	 * Waits until every primary has a live replica with its link up by the cluster's own view, and every node's view
	 * lists every replica: a node's {@code cluster_state:ok} comes before the gossip that tells it which node
	 * replicates which primary, and a client that loads its topology from a node that has not heard yet sees no
	 * replica at all.
	 */
	private void awaitEveryPrimaryReplicated(Duration timeout) {
		await("every primary with a replicating replica, in every node's view").atMost(timeout)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> healthyPrimaries().size() == LocalRedisCluster.NODES && everyNodeListsEveryReplica());
	}

	private boolean everyNodeListsEveryReplica() {
		for (int port : ports()) {
			Optional<String> nodes = this.admin.tryOn(port, (node) -> node.clusterNodes());
			if (nodes.isEmpty()
					|| parse(nodes.get()).stream().filter((node) -> !node.primary()).count() < LocalRedisCluster.NODES) {
				return false;
			}
		}
		return true;
	}

	/** A fresh program whose keys live on the given primary. */
	public String programOn(int primaryPort) {
		for (int i = 0; i < 10_000; i++) {
			String program = FailoverRequests.newProgram();
			if (primaryOf(ProgramScope.of(FailoverRequests.TENANT, program)) == primaryPort) {
				return program;
			}
		}
		throw new IllegalStateException("no program found on " + primaryPort);
	}

	/** How many replicas of a primary acknowledged every write so far ({@link NodeAdmin#waitForReplicas}). */
	public long waitForReplicas(int primaryPort, int replicas, Duration timeout) {
		return this.admin.waitForReplicas(primaryPort, probeKey(primaryPort), replicas, timeout);
	}

	/** A key that hashes to a slot the primary on {@code port} serves. */
	private String probeKey(int port) {
		List<Object> slots = this.admin.on(port, (node) -> node.clusterSlots());
		for (int i = 0; i < 100_000; i++) {
			String key = "starintel-failover-wait-probe-" + i;
			int slot = SlotHash.getSlot(key);
			for (Object entry : slots) {
				List<?> range = (List<?>) entry;
				int port2 = ((Number) ((List<?>) range.get(2)).get(1)).intValue();
				if (port2 == port && slot >= ((Number) range.get(0)).intValue()
						&& slot <= ((Number) range.get(1)).intValue()) {
					return key;
				}
			}
		}
		throw new IllegalStateException("node " + port + " serves no slot");
	}

	/** Kills a node with SIGKILL. */
	public void kill(int port) {
		this.cluster.process(port).kill();
	}

	/** Freezes a node (SIGSTOP). */
	public void freeze(int port) {
		this.cluster.process(port).suspend();
	}

	/** Lets a frozen node run again (SIGCONT). */
	public void thaw(int port) {
		this.cluster.process(port).resume();
	}

	/**
	 * With the primary's replica {@link #freeze(int) frozen}: writes filler (256 KB values) into {@code scope}'s slot
	 * on the primary until the primary holds at least {@code held} bytes of replication output for the replica in
	 * its own buffer, i.e. the kernel's socket buffers are full and what is written next stays in the primary.
	 * @return the filler bytes written
	 */
	public long buildLag(int primaryPort, ProgramScope scope, long held) {
		String value = "x".repeat(256 * 1024);
		long written = 0;
		for (int i = 0; written < 256L * 1024 * 1024; i++) {
			if (replicaOutputBuffer(primaryPort) >= held) {
				return written;
			}
			String key = "starintel-failover-filler:{" + scope.hashTag() + "}:" + i;
			this.admin.on(primaryPort, (node) -> node.set(key, value));
			written += value.length();
		}
		throw new IllegalStateException("the primary holds no replication output after 256 MB of filler: is the "
				+ "replica frozen?");
	}

	/** The bytes a primary holds in the output buffers of its replicas' connections ({@code omem}). */
	public long replicaOutputBuffer(int primaryPort) {
		String clients = this.admin.on(primaryPort, (node) -> node.clientList());
		long held = 0;
		for (String line : clients.split("\r?\n")) {
			if (line.contains("flags=S")) {
				held += Long.parseLong(line.replaceAll(".*\\bomem=(\\d+).*", "$1"));
			}
		}
		return held;
	}

	/**
	 * Cuts a replica off its primary: a wrong {@code masterauth} on the replica and its link killed on the primary,
	 * so it cannot resynchronize; waits until the primary reports no connected replica.
	 */
	public void cutReplicaLink(int replicaPort) {
		int primaryPort = primaryOfReplica(replicaPort);
		this.admin.on(replicaPort, (node) -> node.configSet("masterauth", CUT_PASSWORD));
		await("replica " + replicaPort + " cut off " + primaryPort).atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				this.admin.on(primaryPort, (node) -> node.clientKill(KillArgs.Builder.typeSlave()));
				return this.admin.info(primaryPort, "replication").contains("connected_slaves:0")
						&& this.admin.info(replicaPort, "replication").contains("master_link_status:down");
			});
	}

	/** Lets a cut-off replica resynchronize (with whoever its primary is now). */
	public void restoreReplicaLink(int port) {
		this.admin.on(port, (node) -> node.configSet("masterauth", ""));
	}

	/** {@code CLUSTER FAILOVER} ({@code FORCE}: without the primary's agreement or catching up) on a replica. */
	public void failover(int replicaPort, boolean force) {
		this.admin.on(replicaPort, (node) -> node.clusterFailover(force));
	}

	/**
	 * A graceful {@code CLUSTER FAILOVER} on a replica, waiting until it is promoted ({@link #awaitPromotion}); sent
	 * again while the replica is still one after 10 s, up to {@code timeout}. The server abandons a manual failover that
	 * has not completed within 5 s (the replica not caught up, or the votes not collected in time), which a loaded
	 * machine does now and then; the replica then stays one, and nothing else would promote it.
	 */
	public void failoverGracefully(int replicaPort, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			if (this.admin.info(replicaPort, "replication").contains("role:slave")) {
				failover(replicaPort, false);
			}
			long left = deadline - System.nanoTime();
			try {
				awaitPromotion(replicaPort, Duration.ofNanos(Math.min(left, Duration.ofSeconds(10).toNanos())));
				return;
			}
			catch (ConditionTimeoutException ex) {
				if (System.nanoTime() - deadline >= 0) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Waits until every usable node sees {@code port} as a primary serving slots and reports
	 * {@code cluster_state:ok}.
	 */
	public void awaitPromotion(int port, Duration timeout) {
		await("node " + port + " promoted and the cluster ok").atMost(timeout)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				for (int node : ports()) {
					if (!usable(node)) {
						continue;
					}
					Optional<String> view = this.admin.tryOn(node, (n) -> n.clusterNodes());
					Optional<String> info = this.admin.tryOn(node, (n) -> n.clusterInfo());
					if (view.isEmpty() || info.isEmpty() || !info.get().contains("cluster_state:ok")) {
						return false;
					}
					boolean promoted = parse(view.get()).stream()
						.anyMatch((n) -> n.port() == port && n.primary() && n.slotRanges() > 0);
					if (!promoted) {
						return false;
					}
				}
				return true;
			});
	}

	/** Starts a killed node again (empty; it keeps its cluster configuration) and waits until it is a replica in sync. */
	public void restartAsReplica(int port) {
		try {
			this.cluster.process(port).restartEmpty();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		awaitReplicaInSync(port, Duration.ofSeconds(60));
	}

	/**
	 * Waits until {@code port} is a replica whose link is up and the cluster is ok on it, and every usable node's
	 * view has it as a replica no longer marked failed (a restarted node's {@code fail} flag is cleared by gossip
	 * after it answers again, so a node asked too early still reports the shard without a live replica).
	 */
	public void awaitReplicaInSync(int port, Duration timeout) {
		await("node " + port + " a replica in sync").atMost(timeout)
			.pollInterval(Duration.ofMillis(200))
			.ignoreExceptions()
			.until(() -> {
				String replication = this.admin.info(port, "replication");
				return replication.contains("role:slave") && replication.contains("master_link_status:up")
						&& this.admin.on(port, (n) -> n.clusterInfo()).contains("cluster_state:ok")
						&& everyUsableNodeSeesALiveReplica(port);
			});
	}

	private boolean everyUsableNodeSeesALiveReplica(int replicaPort) {
		for (int node : ports()) {
			if (!usable(node)) {
				continue;
			}
			boolean live = parse(this.admin.on(node, (n) -> n.clusterNodes())).stream()
				.anyMatch((n) -> n.port() == replicaPort && !n.primary() && !n.failed());
			if (!live) {
				return false;
			}
		}
		return true;
	}

	/** The primary a replica replicates from, by the cluster's view. */
	public int primaryOfReplica(int replicaPort) {
		List<Node> topology = topology();
		Node replica = topology.stream().filter((n) -> n.port() == replicaPort).findFirst().orElseThrow();
		return topology.stream().filter((n) -> n.id().equals(replica.primaryId())).findFirst().orElseThrow().port();
	}

	/** Runs a command on a node directly. */
	public <T> T on(int port, java.util.function.Function<io.lettuce.core.api.sync.RedisCommands<String, String>, T> call) {
		return this.admin.on(port, call);
	}

	/** Whether a node runs and is not frozen. */
	public boolean usable(int port) {
		RedisServerProcess process = this.cluster.process(port);
		return process.isAlive() && !process.isSuspended();
	}

	/** The node's process. */
	public RedisServerProcess process(int port) {
		return this.cluster.process(port);
	}

	@Override
	public void close() {
		for (int port : ports()) {
			RedisServerProcess process = this.cluster.process(port);
			if (process.isSuspended()) {
				process.resume();
			}
		}
		this.admin.close();
		this.cluster.close();
		releasePorts(this.basePort);
	}

	private static void releasePorts(int base) {
		for (int i = 0; i < LocalRedisCluster.NODES * 2; i++) {
			FailoverPorts.release(base + i);
		}
	}

}
