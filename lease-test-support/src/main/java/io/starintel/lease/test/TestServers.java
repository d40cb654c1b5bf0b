package io.starintel.lease.test;

import java.net.URI;
import java.util.Locale;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the integration suites find their servers in this run: in containers (Testcontainers, {@link TestContainers})
 * when a Docker engine answers, else the local servers of {@code scripts/services.sh} ({@link ServiceEnvironment},
 * the {@code STARINTEL_*} variables). Decided once per JVM, on first use, and logged once, e.g.
 * {@code StarIntel test servers: CONTAINERS (Docker 20.10.24 ...)} or
 * {@code StarIntel test servers: LOCAL (no Docker engine answers ...)}.
 *
 * <p>The decision, from the system property {@value #CONTAINERS_PROPERTY} or else the environment variable
 * {@value ServiceEnvironment#CONTAINERS}:
 * <ul>
 * <li>{@code false}: the local servers;</li>
 * <li>{@code true}: containers, and no Docker engine is an error (every caller fails);</li>
 * <li>unset or {@code auto}: containers when Testcontainers is on the classpath and a Docker engine answers, else the
 * local servers.</li>
 * </ul>
 * A server that is then missing fails its suite (a suite may skip instead outside CI, never under {@code CI=true}).
 * In containers mode there is one container per server kind per JVM, started on first use and removed when the JVM
 * exits; the pouchdb-server of the CouchDB fence suites is always the local one (there is no container for it).
 */
public final class TestServers {

	/** The system property that chooses: {@code true}, {@code false} or {@code auto} (the default). */
	public static final String CONTAINERS_PROPERTY = "starintel.containers";

	private static final Logger logger = LoggerFactory.getLogger(TestServers.class);

	private static @Nullable Decision decision;

	private TestServers() {
	}

	/** Where the servers of this run are. */
	public enum Mode {

		/** Containers started by Testcontainers, one per server kind per JVM. */
		CONTAINERS,

		/** The local servers ({@code scripts/services.sh}, {@code STARINTEL_*} variables). */
		LOCAL

	}

	/** An Apache CouchDB endpoint with its administrator. */
	public record CouchDb(String url, String user, String password) {
	}

	/**
	 * This run's mode, decided (and logged) on the first call.
	 * @throws IllegalStateException when containers are required ({@code true}) but no Docker engine answers
	 */
	public static Mode mode() {
		Decision current = decide();
		if (current.failure != null) {
			throw new IllegalStateException(current.failure);
		}
		return current.mode;
	}

	/** Whether this run's servers are containers. */
	public static boolean containers() {
		return mode() == Mode.CONTAINERS;
	}

	/** Why this run uses its mode (the line that was logged). */
	public static String reason() {
		return decide().message;
	}

	/** Whether {@code CI=true}: a missing server must then fail, never skip. */
	public static boolean ci() {
		return "true".equals(System.getenv("CI"));
	}

	/** The shared Redis server. */
	public static URI redisUri() {
		return containers() ? TestContainers.redisUri() : ServiceEnvironment.redisUri();
	}

	/** The shared Valkey server. */
	public static URI valkeyUri() {
		return containers() ? TestContainers.valkeyUri() : ServiceEnvironment.valkeyUri();
	}

	/** The RabbitMQ host (guest/guest). */
	public static String rabbitHost() {
		return containers() ? TestContainers.rabbitHost() : ServiceEnvironment.rabbitHost();
	}

	/** The RabbitMQ AMQP port. */
	public static int rabbitPort() {
		return containers() ? TestContainers.rabbitPort() : ServiceEnvironment.rabbitPort();
	}

	/** The Apache CouchDB server and its administrator. */
	public static CouchDb apacheCouchDb() {
		return containers() ? TestContainers.apacheCouchDb() : ServiceEnvironment.apacheCouchDb();
	}

	/** The pouchdb-server URL: always the local one (no container). */
	public static String pouchDbUrl() {
		return ServiceEnvironment.couchDbUrl();
	}

	private static synchronized Decision decide() {
		Decision current = decision;
		if (current == null) {
			current = evaluate();
			decision = current;
			if (current.failure != null) {
				logger.error("StarIntel test servers: {}", current.failure);
			}
			else if (current.mode == Mode.LOCAL) {
				logger.warn("StarIntel test servers: LOCAL ({}): the STARINTEL_* variables, else the local defaults "
						+ "of scripts/services.sh", current.message);
			}
			else {
				logger.info("StarIntel test servers: CONTAINERS ({})", current.message);
			}
		}
		return current;
	}

	private static Decision evaluate() {
		String property = System.getProperty(CONTAINERS_PROPERTY);
		String setting = (property != null && !property.isBlank()) ? property
				: ServiceEnvironment.env(ServiceEnvironment.CONTAINERS, "auto");
		setting = setting.trim().toLowerCase(Locale.ROOT);
		String source = (property != null && !property.isBlank()) ? "-D" + CONTAINERS_PROPERTY
				: ServiceEnvironment.CONTAINERS;
		if (setting.equals("false")) {
			return new Decision(Mode.LOCAL, "disabled by " + source + "=false", null);
		}
		boolean required = setting.equals("true");
		if (!required && !setting.equals("auto")) {
			return new Decision(Mode.LOCAL, "", source + "=" + setting + " is none of true, false, auto");
		}
		String unavailable;
		if (!testcontainersPresent()) {
			unavailable = "Testcontainers is not on this module's test classpath";
		}
		else {
			try {
				unavailable = TestContainers.dockerUnavailable();
			}
			catch (LinkageError ex) {
				return new Decision(Mode.LOCAL, "", "Testcontainers cannot run on this module's test classpath (a "
						+ "dependency version conflict?): " + ex);
			}
			if (unavailable == null) {
				return new Decision(Mode.CONTAINERS, TestContainers.describe() + ((required) ? ", required by "
						+ source + "=true" : ""), null);
			}
		}
		if (required) {
			return new Decision(Mode.LOCAL, "", "containers are required (" + source + "=true) but " + unavailable);
		}
		return new Decision(Mode.LOCAL, unavailable, null);
	}

	private static boolean testcontainersPresent() {
		try {
			Class.forName("org.testcontainers.DockerClientFactory", false, TestServers.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	private record Decision(Mode mode, String message, @Nullable String failure) {
	}

}
