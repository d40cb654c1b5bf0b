package io.starintel.lease.it.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import io.starintel.lease.test.RedisServerProcess;
import io.starintel.lease.test.TestContainers;
import io.starintel.lease.test.TestServers;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.GenericContainer;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.awaitility.Awaitility.await;

/**
 * A throw-away Redis or Valkey Cluster of three masters on loopback, started by a test and destroyed by
 * {@link #close()}: {@code redis-server --cluster-enabled yes} (or {@code valkey-server}, see
 * {@link RedisServerKind#requireServerBinary()}) processes (no persistence, data in a temporary folder), each checked
 * to be of the requested kind, joined with {@code redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes}
 * (Debian's {@code redis-cli} joins Valkey nodes too), ready once every node reports {@code cluster_state:ok}.
 *
 * <p>Ports are {@code base..base+2} (cluster bus {@code +10000}); the base is 7000 unless one of those ports is
 * taken, then a free base is picked. Besides the cluster itself it offers direct (non-cluster) connections to each
 * node, to check where a key really lives and to run per-node commands such as {@code SCRIPT FLUSH}.
 *
 * <p>{@link #start(RedisServerKind, int, int, String...)} adds replicas (the failover suites: 3 primaries + 3
 * replicas on ports {@code base..base+5}, extra node arguments such as {@code --cluster-node-timeout}), and
 * {@link #process(int)} gives a test the node's process to kill or freeze.
 *
 * <p>With containers ({@link TestServers}) the three nodes run in one container of the kind's image
 * ({@link TestContainers#redisCluster}): published on the same host ports in 7300-7399 (a cluster hands its clients
 * the nodes' addresses, so inside and outside must agree; every node announces {@code 127.0.0.1}), their bus ports
 * stay inside the container, and the cluster is joined over the direct connections ({@code CLUSTER ADDSLOTSRANGE},
 * {@code SET-CONFIG-EPOCH}, {@code MEET}, what {@code redis-cli --cluster create} sends), so neither a server binary
 * nor {@code redis-cli} is needed. One container with published ports rather than host networking: it works the same
 * on Docker Desktop, and the nodes' gossip never leaves the container.
 */
public final class LocalRedisCluster implements AutoCloseable {

	/** Primaries (masters) of the cluster; {@link #start(RedisServerKind)} starts no replicas. */
	public static final int NODES = 3;

	private static final int DEFAULT_BASE_PORT = 7000;

	private static final int BUS_OFFSET = 10000;

	/** The host ports the containerized cluster may use (this project's range for fixed host ports). */
	private static final int CONTAINER_PORTS_FROM = 7300;

	private static final int CONTAINER_PORTS_TO = 7399;

	private final RedisServerKind kind;

	private final @Nullable Path serverBinary;

	private final @Nullable Path cli;

	private final Path directory;

	private final int basePort;

	private final int replicasPerPrimary;

	private final List<String> nodeArguments;

	private final List<RedisServerProcess> processes = new ArrayList<>();

	private @Nullable GenericContainer<?> container;

	private final List<RedisClient> clients = new ArrayList<>();

	private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

	private final Thread shutdownHook;

	private LocalRedisCluster(RedisServerKind kind, @Nullable Path serverBinary, @Nullable Path cli, Path directory,
			int basePort, int replicasPerPrimary, List<String> nodeArguments) {
		this.kind = kind;
		this.serverBinary = serverBinary;
		this.cli = cli;
		this.directory = directory;
		this.basePort = basePort;
		this.replicasPerPrimary = replicasPerPrimary;
		this.nodeArguments = nodeArguments;
		this.shutdownHook = new Thread(this::destroyProcesses, "local-redis-cluster-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/** Starts a Redis Cluster, see {@link #start(RedisServerKind)}. */
	public static LocalRedisCluster start() {
		return start(RedisServerKind.REDIS);
	}

	/**
	 * Starts a cluster of the given kind and waits until it is usable; on any failure everything started so far is
	 * destroyed.
	 * @throws IllegalStateException when the server binary or {@code redis-cli} is not installed, or the cluster does
	 * not form in time
	 */
	public static LocalRedisCluster start(RedisServerKind kind) {
		if (TestServers.containers()) {
			return startInContainer(kind);
		}
		return start(kind, 0, freeBasePort(0));
	}

	/**
	 * Starts a cluster of {@link #NODES} primaries with {@code replicasPerPrimary} replicas each on the client ports
	 * {@code basePort..} (bus ports {@code +10000}), every node started with {@code nodeArguments} too, and waits
	 * until it is usable: every node reports {@code cluster_state:ok} and knows every other node, and every replica's
	 * link to its primary is up. On any failure everything started so far is destroyed. Always server processes (the
	 * failover suites kill and freeze them), never a container.
	 */
	public static LocalRedisCluster start(RedisServerKind kind, int replicasPerPrimary, int basePort,
			String... nodeArguments) {
		Path serverBinary = kind.requireServerBinary();
		Path cli = RedisServerKind.requireRedisCli();
		Path directory;
		try {
			directory = Files.createTempDirectory("starintel-redis-cluster");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		LocalRedisCluster cluster = new LocalRedisCluster(kind, serverBinary, cli, directory, basePort,
				replicasPerPrimary, List.of(nodeArguments));
		try {
			cluster.startNodes();
			cluster.create();
			cluster.awaitClusterOk();
			return cluster;
		}
		catch (RuntimeException | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Starts the nodes in one container on a free range of host ports in 7300-7399 (a few attempts: another run may
	 * take a range between the check and the start), joins them and waits until the cluster is usable.
	 */
	private static LocalRedisCluster startInContainer(RedisServerKind kind) {
		RuntimeException last = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			int basePort = freeContainerBasePort();
			Path directory;
			try {
				directory = Files.createTempDirectory("starintel-redis-cluster");
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			LocalRedisCluster cluster = new LocalRedisCluster(kind, null, null, directory, basePort, 0, List.of());
			try {
				cluster.container = TestContainers.redisCluster(kind.image(), basePort, NODES);
				cluster.container.start();
			}
			catch (RuntimeException ex) {
				cluster.close();
				last = ex;
				continue;
			}
			try {
				cluster.connectNodes();
				cluster.joinNodes();
				cluster.awaitClusterOk();
				return cluster;
			}
			catch (RuntimeException | Error ex) {
				cluster.close();
				throw ex;
			}
		}
		throw kind.unavailable("its cluster container did not start on any free port range in " + CONTAINER_PORTS_FROM
				+ "-" + CONTAINER_PORTS_TO + ": " + ((last != null) ? last.getMessage() : "no free range"));
	}

	/** The client ports of the nodes (primaries and replicas, as started), in order. */
	public List<Integer> ports() {
		List<Integer> ports = new ArrayList<>();
		for (int i = 0; i < nodeCount(); i++) {
			ports.add(this.basePort + i);
		}
		return ports;
	}

	/** {@code 127.0.0.1:port} of every node, as a cluster configuration wants them. */
	public List<String> nodeAddresses() {
		return ports().stream().map((port) -> "127.0.0.1:" + port).toList();
	}

	/**
	 * A started Spring Data Redis connection factory on the cluster (Lettuce, cluster-aware: it routes by slot), as
	 * Boot builds one from {@code spring.data.redis.cluster.nodes}; the caller destroys it.
	 */
	public LettuceConnectionFactory connectionFactory(LettuceClientConfiguration client) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(nodeAddresses()), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** Every node of the cluster: {@link #NODES} primaries and their replicas. */
	public int nodeCount() {
		return NODES * (1 + this.replicasPerPrimary);
	}

	/** The process of the node with the given client port (to kill, freeze or restart it). */
	public RedisServerProcess process(int port) {
		return this.processes.get(port - this.basePort);
	}

	/** The kind of server the nodes run. */
	public RedisServerKind kind() {
		return this.kind;
	}

	/** A direct (not cluster-aware) connection to the node with the given client port. */
	public RedisCommands<String, String> node(int port) {
		return this.connections.get(port - this.basePort).sync();
	}

	/** The client port of the node that serves a hash slot, from that node's own {@code CLUSTER SLOTS}. */
	public int ownerOfSlot(int slot) {
		for (Map.Entry<int[], Integer> range : slotRanges(node(this.basePort)).entrySet()) {
			if (slot >= range.getKey()[0] && slot <= range.getKey()[1]) {
				return range.getValue();
			}
		}
		throw new IllegalStateException("no node serves slot " + slot);
	}

	private static Map<int[], Integer> slotRanges(RedisCommands<String, String> node) {
		Map<int[], Integer> ranges = new TreeMap<>(Comparator.comparingInt((int[] r) -> r[0]));
		for (Object entry : node.clusterSlots()) {
			List<?> range = (List<?>) entry;
			List<?> master = (List<?>) range.get(2);
			ranges.put(new int[] { ((Number) range.get(0)).intValue(), ((Number) range.get(1)).intValue() },
					((Number) master.get(1)).intValue());
		}
		return ranges;
	}

	private void startNodes() {
		launchProcesses();
		connectNodes();
	}

	private void launchProcesses() {
		for (int port : ports()) {
			try {
				List<String> arguments = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
						"nodes-" + port + ".conf", "--daemonize", "no"));
				arguments.addAll(this.nodeArguments);
				this.processes.add(RedisServerProcess.launch(this.serverBinary, port, this.directory,
						arguments.toArray(String[]::new)));
			}
			catch (IOException ex) {
				throw new IllegalStateException("could not start " + this.serverBinary + " on port " + port, ex);
			}
		}
	}

	private void connectNodes() {
		for (int port : ports()) {
			RedisClient client = RedisClient.create(RedisURI.builder()
				.withHost("127.0.0.1")
				.withPort(port)
				.withTimeout(Duration.ofSeconds(5))
				.build());
			this.clients.add(client);
			AtomicReference<StatefulRedisConnection<String, String>> connection = new AtomicReference<>();
			await(this.kind + " node on port " + port + " answering").atMost(Duration.ofSeconds(15))
				.pollInterval(Duration.ofMillis(50))
				.ignoreExceptions()
				.until(() -> {
					requireAlive();
					if (connection.get() == null) {
						connection.set(client.connect());
					}
					return "PONG".equals(connection.get().sync().ping());
				});
			this.connections.add(connection.get());
			RedisServers.verify(this.kind, "127.0.0.1", port);
		}
	}

	private void create() {
		List<String> command = new ArrayList<>(List.of(this.cli.toString(), "--cluster", "create"));
		command.addAll(nodeAddresses());
		command.addAll(List.of("--cluster-replicas", Integer.toString(this.replicasPerPrimary), "--cluster-yes"));
		Path log = this.directory.resolve("cluster-create.log");
		try {
			Process process = new ProcessBuilder(command).directory(this.directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			process.getOutputStream().close();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("redis-cli --cluster create did not finish in 30 s: " + read(log));
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException("redis-cli --cluster create failed: " + read(log));
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("could not run redis-cli --cluster create", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while creating the cluster", ex);
		}
	}

	/**
	 * What {@code redis-cli --cluster create ... --cluster-replicas 0} does, over the direct connections: each node
	 * gets its third of the slots and its own config epoch, then the first node meets the others.
	 */
	private void joinNodes() {
		List<Integer> ports = ports();
		int slots = 16384;
		for (int i = 0; i < NODES; i++) {
			int first = slots * i / NODES;
			int last = slots * (i + 1) / NODES - 1;
			RedisCommands<String, String> node = node(ports.get(i));
			node.clusterAddSlotsRange(Range.create(first, last));
			node.clusterSetConfigEpoch(i + 1);
		}
		for (int i = 1; i < NODES; i++) {
			node(ports.get(0)).clusterMeet("127.0.0.1", ports.get(i));
		}
	}

	private void awaitClusterOk() {
		await("cluster_state:ok on every node").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				requireAlive();
				for (int port : ports()) {
					String info = node(port).clusterInfo();
					if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")
							|| !info.contains("cluster_known_nodes:" + nodeCount())) {
						return false;
					}
					String replication = node(port).info("replication");
					if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
						return false;
					}
					// every node must already see the whole slot map, so clients get one consistent topology
					Map<int[], Integer> ranges = slotRanges(node(port));
					if (ranges.values().stream().distinct().count() != NODES) {
						return false;
					}
				}
				return true;
			});
	}

	private void requireAlive() {
		GenericContainer<?> current = this.container;
		if (current != null && !current.isRunning()) {
			throw new IllegalStateException(this.kind + " cluster container exited: " + current.getLogs());
		}
		for (int i = 0; i < this.processes.size(); i++) {
			if (!this.processes.get(i).isAlive()) {
				throw new IllegalStateException(this.kind + " node on port " + (this.basePort + i) + " exited: "
						+ this.processes.get(i).log());
			}
		}
	}

	/** Closes the connections, destroys the processes and removes the temporary folder. */
	@Override
	public void close() {
		this.connections.forEach(StatefulRedisConnection::close);
		this.clients.forEach(RedisClient::shutdown);
		destroyProcesses();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// the JVM is already shutting down: the hook runs anyway
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// a leftover temporary folder is harmless
		}
	}

	private void destroyProcesses() {
		this.processes.forEach(RedisServerProcess::stop);
		GenericContainer<?> current = this.container;
		if (current != null) {
			current.stop();
		}
	}

	private static int freeContainerBasePort() {
		List<Integer> bases = new ArrayList<>();
		for (int base = CONTAINER_PORTS_FROM; base + NODES - 1 <= CONTAINER_PORTS_TO; base += NODES) {
			bases.add(base);
		}
		Collections.shuffle(bases);
		for (int base : bases) {
			boolean free = true;
			for (int i = 0; i < NODES; i++) {
				free &= portFree(base + i);
			}
			if (free) {
				return base;
			}
		}
		throw new IllegalStateException("no free port range for the cluster container in " + CONTAINER_PORTS_FROM + "-"
				+ CONTAINER_PORTS_TO);
	}

	private static int freeBasePort(int replicasPerPrimary) {
		int nodes = NODES * (1 + replicasPerPrimary);
		if (portsFree(DEFAULT_BASE_PORT, nodes)) {
			return DEFAULT_BASE_PORT;
		}
		for (int attempt = 0; attempt < 50; attempt++) {
			int base = ThreadLocalRandom.current().nextInt(20000, 29000);
			if (portsFree(base, nodes)) {
				return base;
			}
		}
		throw new IllegalStateException("no free port range for a local Redis Cluster");
	}

	private static boolean portsFree(int base, int nodes) {
		for (int i = 0; i < nodes; i++) {
			if (!portFree(base + i) || !portFree(base + i + BUS_OFFSET)) {
				return false;
			}
		}
		return true;
	}

	private static boolean portFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			socket.setReuseAddress(true);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

}
