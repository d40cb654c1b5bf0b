package io.starintel.lease.it.redis;

import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import io.starintel.lease.test.ServiceEnvironment;
import io.starintel.lease.test.TestContainers;
import io.starintel.lease.test.TestServers;
import org.junit.jupiter.api.TestInfo;
import org.opentest4j.TestAbortedException;

/**
 * The two servers the Redis store suites run on, and the one place that knows where each one is: the shared
 * server's URL and what the restart and cluster suites start themselves.
 *
 * <p>With containers ({@link TestServers}: a Docker engine answers), the shared server is a container of the kind's
 * image ({@link #image()}), and the restart and cluster suites start containers of that image too
 * ({@link RedisProcess}, {@link LocalRedisCluster}): no binary is needed. Otherwise, the local servers:
 *
 * <ul>
 * <li>{@link #REDIS}: {@code STARINTEL_REDIS_URL} or {@code redis://127.0.0.1:6379}; binary {@code redis-server} on
 * the {@code PATH} (Debian's package, installed by {@code scripts/services.sh}).</li>
 * <li>{@link #VALKEY}: {@code STARINTEL_VALKEY_URL} or {@code redis://127.0.0.1:6390}; binary
 * {@code STARINTEL_VALKEY_SERVER}, else {@code .services/valkey/valkey-server} of the project (copied or built from
 * {@code ../shared/valkey} by {@code scripts/services.sh}), else {@code valkey-server} on the {@code PATH}.</li>
 * </ul>
 *
 * <p>A server that is not there fails its suites, except a missing Valkey outside CI ({@code CI} is not
 * {@code true}): the Valkey classes then show up as skipped with the reason ({@link ServerAvailableCondition}, and
 * {@link #unavailable(String)} for what the condition does not see).
 */
public enum RedisServerKind {

	/** Redis OSS (Debian 12 packages 7.0). */
	REDIS("Redis", ServiceEnvironment.REDIS_URL, "redis://127.0.0.1:6379", "redis-server", TestContainers.Image.REDIS) {

		@Override
		Optional<Path> serverBinary() {
			return onPath("redis-server");
		}

		@Override
		boolean isThisServer(String infoServer) {
			return infoServer.contains("redis_version:") && !infoServer.contains("server_name:valkey");
		}

		@Override
		String version(String infoServer) {
			return field(infoServer, "redis_version");
		}

	},

	/** Valkey (8.0.1 from {@code ../shared/valkey}). */
	VALKEY("Valkey", ServiceEnvironment.VALKEY_URL, "redis://127.0.0.1:6390", "valkey-server",
			TestContainers.Image.VALKEY) {

		@Override
		Optional<Path> serverBinary() {
			String configured = ServiceEnvironment.env(ServiceEnvironment.VALKEY_SERVER, "");
			if (!configured.isEmpty()) {
				return Optional.of(Path.of(configured)).filter(Files::isExecutable);
			}
			for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
				Path candidate = dir.resolve(".services/valkey/valkey-server");
				if (Files.isExecutable(candidate)) {
					return Optional.of(candidate);
				}
			}
			return onPath("valkey-server");
		}

		@Override
		boolean isThisServer(String infoServer) {
			return infoServer.contains("server_name:valkey") && infoServer.contains("valkey_version:");
		}

		@Override
		String version(String infoServer) {
			return field(infoServer, "valkey_version");
		}

	};

	private final String displayName;

	private final String urlVariable;

	private final String defaultUrl;

	private final String binaryName;

	private final TestContainers.Image image;

	RedisServerKind(String displayName, String urlVariable, String defaultUrl, String binaryName,
			TestContainers.Image image) {
		this.displayName = displayName;
		this.urlVariable = urlVariable;
		this.defaultUrl = defaultUrl;
		this.binaryName = binaryName;
		this.image = image;
	}

	/** The kind a test class runs on: its {@link RunsOn} annotation, else {@link #REDIS}. */
	public static RedisServerKind of(Class<?> testClass) {
		RunsOn runsOn = testClass.getAnnotation(RunsOn.class);
		return (runsOn != null) ? runsOn.value() : REDIS;
	}

	/** The kind a test class runs on, from the {@code TestInfo} of its {@code @BeforeAll}. */
	public static RedisServerKind of(TestInfo testInfo) {
		return of(testInfo.getTestClass().orElseThrow());
	}

	/**
	 * The shared server's URI: its container's (started on first use) with containers, else the environment
	 * variable, else the local default of {@code scripts/services.sh}. A container that does not start is reported
	 * as {@link #unavailable(String)}.
	 */
	public URI uri() {
		if (TestServers.containers()) {
			try {
				return (this == VALKEY) ? TestServers.valkeyUri() : TestServers.redisUri();
			}
			catch (IllegalStateException ex) {
				throw unavailable(ex.getMessage());
			}
		}
		return URI.create(ServiceEnvironment.env(this.urlVariable, this.defaultUrl));
	}

	/** The container image of this kind (only meaningful with containers, see {@link TestServers}). */
	TestContainers.Image image() {
		return this.image;
	}

	/** The server binary the launching suites start, if there is one. */
	abstract Optional<Path> serverBinary();

	/** Whether an {@code INFO server} answer comes from this kind of server. */
	abstract boolean isThisServer(String infoServer);

	/** The server's own version from its {@code INFO server} answer. */
	abstract String version(String infoServer);

	/** The server binary, or the suite fails / is skipped (see the class comment). */
	public Path requireServerBinary() {
		return serverBinary().orElseThrow(() -> unavailable(this.binaryName + " not found (" + ((this == VALKEY)
				? "run scripts/services.sh with ../shared/valkey beside the project, or set STARINTEL_VALKEY_SERVER"
				: "install Redis: bash scripts/services.sh, or apt-get install redis-server") + ")"));
	}

	/**
	 * The exception that reports a missing server: a failure, or for Valkey outside CI an aborted test (reported as
	 * skipped, with the reason).
	 */
	public RuntimeException unavailable(String why) {
		String message = this.displayName + " is not available: " + why;
		boolean ci = TestServers.ci();
		if (this == VALKEY && !ci) {
			System.err.println("WARNING: " + message + "; skipping (CI=true makes this a failure)");
			return new TestAbortedException(message);
		}
		return new IllegalStateException(message + (ci ? " (CI=true)" : ""));
	}

	/** The {@code redis-cli} the cluster suite uses to join nodes (it talks to Valkey too). */
	public static Path requireRedisCli() {
		return onPath("redis-cli").orElseThrow(() -> new IllegalStateException(
				"redis-cli is not installed (not on PATH): install Redis first (bash scripts/services.sh)"));
	}

	@Override
	public String toString() {
		return this.displayName;
	}

	private static Optional<Path> onPath(String name) {
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				Path candidate = Path.of(dir, name);
				if (Files.isExecutable(candidate)) {
					return Optional.of(candidate);
				}
			}
		}
		return Optional.empty();
	}

	private static String field(String info, String name) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(name + ":")) {
				return line.substring(name.length() + 1).trim();
			}
		}
		return "?";
	}

}
