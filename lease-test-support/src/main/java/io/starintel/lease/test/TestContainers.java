package io.starintel.lease.test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.github.dockerjava.api.command.PullImageResultCallback;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.rabbitmq.RabbitMQContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.TestcontainersConfiguration;

/**
 * The containers of the suites when {@link TestServers} chose {@link TestServers.Mode#CONTAINERS}: one shared
 * container per server kind per JVM (started on first use; Testcontainers removes them when the JVM exits), and
 * factories for containers that a suite owns (a restartable server, a 3-node cluster, a Spring Boot
 * {@code @ServiceConnection} bean). Only touch this class in containers mode: it needs Testcontainers.
 *
 * <p>Images ({@link Image}): the system property {@code starintel.<kind>.image} or the variable
 * {@code STARINTEL_<KIND>_IMAGE}; else the image that {@code scripts/containers.sh} builds locally when the engine has
 * it ({@code redis:7.0.15-local}, {@code valkey:8.0.1-local}, {@code rabbitmq:3.10.8-local},
 * {@code couchdb:3.4.3-local}); else the official image ({@code redis:7}, {@code valkey/valkey:8}, {@code rabbitmq:3},
 * {@code couchdb:3.4}). An image the engine does not have is pulled once, before any container of it is created; if
 * that fails, every container of that image fails at once with the reason (Testcontainers' own pull would retry for two
 * minutes at each of several steps of every start).
 *
 * <p>Every container carries the label {@value #PID_LABEL} with the pid of its JVM, so that
 * {@code scripts/containers.sh reap} can remove what a killed JVM left behind (Ryuk is off here) and nothing else.
 */
public final class TestContainers {

	/** The label holding the pid of the JVM that started a container. */
	public static final String PID_LABEL = "io.starintel.lease.test.pid";

	/** The Redis/Valkey client port inside a container. */
	public static final int REDIS_PORT = 6379;

	private static final int COUCHDB_PORT = 5984;

	private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);

	private static final Logger logger = LoggerFactory.getLogger(TestContainers.class);

	private static final Shared<GenericContainer<?>> REDIS = new Shared<>(Image.REDIS, () -> redis(Image.REDIS));

	private static final Shared<GenericContainer<?>> VALKEY = new Shared<>(Image.VALKEY, () -> redis(Image.VALKEY));

	private static final Shared<GenericContainer<?>> COUCHDB = new Shared<>(Image.COUCHDB, TestContainers::newCouchDb);

	private TestContainers() {
	}

	/** The server images, each resolved once per JVM (see the class comment). */
	public enum Image {

		/** Redis 7 ({@code redis:7.0.15-local} here: Debian's redis-server). */
		REDIS("redis", "redis:7.0.15-local", "redis:7"),

		/** Valkey 8 ({@code valkey:8.0.1-local} here: {@code ../shared/valkey}). */
		VALKEY("valkey", "valkey:8.0.1-local", "valkey/valkey:8"),

		/** RabbitMQ 3 ({@code rabbitmq:3.10.8-local} here: Debian's rabbitmq-server). */
		RABBITMQ("rabbitmq", "rabbitmq:3.10.8-local", "rabbitmq:3"),

		/** Apache CouchDB 3.4 ({@code couchdb:3.4.3-local} here: {@code ../shared/couchdb}). */
		COUCHDB("couchdb", "couchdb:3.4.3-local", "couchdb:3.4");

		private final String kind;

		private final String local;

		private final String official;

		private volatile @Nullable String resolved;

		private volatile boolean available;

		private volatile @Nullable RuntimeException unavailable;

		Image(String kind, String local, String official) {
			this.kind = kind;
			this.local = local;
			this.official = official;
		}

		/** The image name this run uses. */
		public String imageName() {
			String name = this.resolved;
			if (name == null) {
				String property = System.getProperty("starintel." + this.kind + ".image");
				name = (property != null && !property.isBlank()) ? property.trim()
						: ServiceEnvironment.env("STARINTEL_" + this.kind.toUpperCase(Locale.ROOT) + "_IMAGE", "");
				if (name.isEmpty()) {
					name = present(this.local) ? this.local : this.official;
				}
				this.resolved = name;
			}
			return name;
		}

		/**
		 * The image, declared compatible with the official one (Testcontainers' modules check the name), once the
		 * engine has it.
		 * @throws IllegalStateException when the engine does not have it and it cannot be pulled
		 */
		public DockerImageName dockerImageName() {
			ensureAvailable();
			return DockerImageName.parse(imageName()).asCompatibleSubstituteFor(this.official.split(":")[0]);
		}

		private synchronized void ensureAvailable() {
			if (this.available) {
				return;
			}
			RuntimeException failure = this.unavailable;
			if (failure != null) {
				throw failure;
			}
			String name = imageName();
			if (present(name)) {
				this.available = true;
				return;
			}
			logger.info("StarIntel test servers: pulling {} (the engine does not have it)", name);
			try {
				DockerClientFactory.instance()
					.client()
					.pullImageCmd(name)
					.exec(new PullImageResultCallback())
					.awaitCompletion(TestcontainersConfiguration.getInstance().getImagePullTimeout(), TimeUnit.SECONDS);
				if (present(name)) {
					this.available = true;
					return;
				}
				failure = new IllegalStateException("image " + name + " is not in the engine and the pull did not "
						+ "bring it");
			}
			catch (RuntimeException ex) {
				failure = new IllegalStateException("image " + name + " is not in the engine and cannot be pulled ("
						+ ex.getMessage() + "); " + hint(), ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				failure = new IllegalStateException("interrupted while pulling " + name, ex);
			}
			this.unavailable = failure;
			throw failure;
		}

		private String hint() {
			return "without a registry, build the local images with bash scripts/containers.sh; or choose another "
					+ "image with STARINTEL_" + this.kind.toUpperCase(Locale.ROOT) + "_IMAGE";
		}

		private static boolean present(String image) {
			try {
				DockerClientFactory.instance().client().inspectImageCmd(image).exec();
				return true;
			}
			catch (RuntimeException ex) {
				return false;
			}
		}

	}

	/**
	 * Why no Docker engine can be used, or {@code null} when one answers.
	 * @throws LinkageError when Testcontainers cannot run on this classpath (a build error, not a missing engine)
	 */
	static @Nullable String dockerUnavailable() {
		try {
			if (DockerClientFactory.instance().isDockerAvailable()) {
				return null;
			}
			return "no Docker engine answers (Testcontainers found no valid Docker environment)";
		}
		catch (RuntimeException ex) {
			return "no Docker engine answers (" + ex + ")";
		}
	}

	/** The engine and the images of this run, for the decision line of {@link TestServers}. */
	static String describe() {
		DockerClientFactory docker = DockerClientFactory.instance();
		StringBuilder line = new StringBuilder("Docker ").append(docker.getInfo().getServerVersion())
			.append(" at ")
			.append(docker.getTransportConfig().getDockerHost())
			.append("; images");
		for (Image image : Image.values()) {
			line.append(' ').append(image.imageName());
		}
		List<String> missing = new ArrayList<>();
		for (String variable : List.of("TESTCONTAINERS_RYUK_DISABLED", "TESTCONTAINERS_HOST_OVERRIDE")) {
			if (System.getenv(variable) == null) {
				missing.add(variable);
			}
		}
		if (!missing.isEmpty()) {
			line.append("; WARNING: ").append(missing).append(" unset (the build sets them; without a registry, "
					+ "Testcontainers would try to pull its helper images)");
		}
		return line.toString();
	}

	/** The shared Redis container's URI (started on first use). */
	static URI redisUri() {
		return uri(REDIS.get());
	}

	/** The shared Valkey container's URI (started on first use). */
	static URI valkeyUri() {
		return uri(VALKEY.get());
	}

	static String rabbitHost() {
		return RabbitMq.SHARED.get().getHost();
	}

	static int rabbitPort() {
		return RabbitMq.SHARED.get().getAmqpPort();
	}

	static TestServers.CouchDb apacheCouchDb() {
		GenericContainer<?> couchDb = COUCHDB.get();
		return new TestServers.CouchDb(
				"http://" + couchDb.getHost() + ":" + couchDb.getMappedPort(COUCHDB_PORT), "admin", "admin");
	}

	/** The shared RabbitMQ container (started on first use; guest/guest). Needs {@code testcontainers-rabbitmq}. */
	public static RabbitMQContainer rabbitMq() {
		return RabbitMq.SHARED.get();
	}

	/**
	 * A new, not yet started Redis or Valkey container ({@link Image#REDIS} or {@link Image#VALKEY}) for a suite to
	 * own, e.g. as a Spring Boot {@code @ServiceConnection(name = "redis")} bean; ready once it logs that it accepts
	 * connections.
	 */
	public static GenericContainer<?> redis(Image image) {
		return labelled(new GenericContainer<>(image.dockerImageName())).withExposedPorts(REDIS_PORT)
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1))
			.withStartupTimeout(STARTUP_TIMEOUT);
	}

	/**
	 * A new, not yet started Redis or Valkey container whose server can be restarted empty while the container (and
	 * its published port) stays: a shell runs the server without persistence in a loop, so {@code SHUTDOWN NOSAVE}
	 * sent by the test is a restart that loses every key.
	 */
	public static GenericContainer<?> restartableRedis(Image image) {
		String script = "trap 'kill $p 2>/dev/null; exit 0' TERM INT; "
				+ "s=$(command -v valkey-server || command -v redis-server); "
				+ "while :; do \"$s\" --port " + REDIS_PORT
				+ " --bind 0.0.0.0 --protected-mode no --save '' --appendonly no & p=$!; wait $p; done";
		return labelled(new GenericContainer<>(image.dockerImageName()))
			.withCreateContainerCmdModifier((cmd) -> cmd.withEntrypoint("sh", "-c", script).withCmd(List.of()))
			.withExposedPorts(REDIS_PORT)
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1))
			.withStartupTimeout(STARTUP_TIMEOUT);
	}

	/**
	 * A new, not yet started container running {@code nodes} cluster-enabled Redis or Valkey servers on the client
	 * ports {@code basePort..basePort+nodes-1}, published on the same host ports (a cluster tells its clients the
	 * nodes' addresses, so the ports inside and outside must be equal); each node announces {@code 127.0.0.1}, and
	 * the nodes reach each other's bus ({@code port + 10000}) inside the container. Not joined yet: the caller
	 * assigns the slots and introduces the nodes ({@code CLUSTER ADDSLOTS}, {@code CLUSTER MEET}).
	 */
	public static GenericContainer<?> redisCluster(Image image, int basePort, int nodes) {
		StringBuilder script = new StringBuilder(
				"trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM INT; s=$(command -v valkey-server || command -v redis-server); ");
		List<ExposedPort> exposed = new ArrayList<>();
		List<PortBinding> bindings = new ArrayList<>();
		for (int i = 0; i < nodes; i++) {
			int port = basePort + i;
			script.append("\"$s\" --port ")
				.append(port)
				.append(" --bind 0.0.0.0 --protected-mode no --save '' --appendonly no --cluster-enabled yes"
						+ " --cluster-config-file nodes-")
				.append(port)
				.append(".conf --cluster-announce-ip 127.0.0.1 & ");
			exposed.add(ExposedPort.tcp(port));
			bindings.add(new PortBinding(Ports.Binding.bindPort(port), ExposedPort.tcp(port)));
		}
		script.append("wait");
		return labelled(new GenericContainer<>(image.dockerImageName()))
			.withCreateContainerCmdModifier((cmd) -> {
				cmd.withEntrypoint("sh", "-c", script.toString()).withCmd(List.of()).withExposedPorts(exposed);
				cmd.getHostConfig().withPortBindings(bindings);
			})
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", nodes))
			.withStartupTimeout(STARTUP_TIMEOUT);
	}

	/**
	 * RabbitMQ apart, so that this class loads without {@code testcontainers-rabbitmq} (only the suites that use the
	 * broker have it).
	 */
	private static final class RabbitMq {

		static final Shared<RabbitMQContainer> SHARED = new Shared<>(Image.RABBITMQ, () -> labelled(
				new RabbitMQContainer(Image.RABBITMQ.dockerImageName())).withStartupTimeout(STARTUP_TIMEOUT));

	}

	/**
	 * Apache CouchDB with the administrator admin/admin (the official image creates it from the environment), ready
	 * once its {@code _users} database exists: a single node creates its system databases after {@code /_up} first
	 * answers, and a suite that adds a user right after start would otherwise meet a 404.
	 */
	private static GenericContainer<?> newCouchDb() {
		return labelled(new GenericContainer<>(Image.COUCHDB.dockerImageName())).withExposedPorts(COUCHDB_PORT)
			.withEnv("COUCHDB_USER", "admin")
			.withEnv("COUCHDB_PASSWORD", "admin")
			.waitingFor(Wait.forHttp("/_users")
				.forPort(COUCHDB_PORT)
				.withBasicCredentials("admin", "admin")
				.forStatusCode(200))
			.withStartupTimeout(STARTUP_TIMEOUT);
	}

	private static <C extends GenericContainer<?>> C labelled(C container) {
		container.withLabel(PID_LABEL, Long.toString(ProcessHandle.current().pid()));
		return container;
	}

	private static URI uri(GenericContainer<?> container) {
		return URI.create("redis://" + container.getHost() + ":" + container.getMappedPort(REDIS_PORT));
	}

	/** A container started once, on first use, by whichever thread asks first. */
	private static final class Shared<C extends GenericContainer<?>> {

		private final Image image;

		private final Supplier<C> factory;

		private @Nullable C container;

		private @Nullable RuntimeException failure;

		Shared(Image image, Supplier<C> factory) {
			this.image = image;
			this.factory = factory;
		}

		/** The started container; a container that did not start fails every later call at once, with the reason. */
		synchronized C get() {
			if (this.failure != null) {
				throw this.failure;
			}
			C current = this.container;
			if (current == null) {
				long start = System.nanoTime();
				try {
					current = this.factory.get();
					current.start();
				}
				catch (RuntimeException ex) {
					if (current != null) {
						current.stop();
					}
					this.failure = new IllegalStateException(
							"the " + this.image.imageName() + " container did not start: " + ex.getMessage(), ex);
					throw this.failure;
				}
				logger.info("StarIntel test servers: started {} at {}:{} in {} ms", this.image.imageName(),
						current.getHost(), current.getExposedPorts().isEmpty() ? "-"
								: current.getMappedPort(current.getExposedPorts().get(0)),
						(System.nanoTime() - start) / 1_000_000);
				this.container = current;
			}
			return current;
		}

	}

}
