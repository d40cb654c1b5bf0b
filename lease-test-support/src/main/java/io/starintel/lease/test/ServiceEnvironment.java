package io.starintel.lease.test;

import java.net.URI;

/**
 * The one convention for where tests find the real servers: a {@code STARINTEL_*} environment variable when set,
 * else the local default that {@code scripts/services.sh} starts.
 *
 * <ul>
 * <li>{@value #REDIS_URL}: {@code redis://127.0.0.1:6379}</li>
 * <li>{@value #VALKEY_URL}: {@code redis://127.0.0.1:6390} (the binary: {@value #VALKEY_SERVER})</li>
 * <li>{@value #RABBIT_HOST}: {@code 127.0.0.1}; {@value #RABBIT_PORT}: {@code 5672} (guest/guest)</li>
 * <li>{@value #COUCHDB_URL}: {@code http://127.0.0.1:5984} (pouchdb-server)</li>
 * <li>{@value #COUCHDB_REAL_URL}: {@code http://127.0.0.1:5986} (Apache CouchDB; {@code _USER} / {@code _PASSWORD},
 * default admin/admin)</li>
 * </ul>
 * A Spring Boot test reads the same variable, e.g.
 * {@code spring.data.redis.url=${STARINTEL_REDIS_URL:redis://127.0.0.1:6379}}.
 *
 * <p>These are the local servers. Whether a run uses them or containers is decided by {@link TestServers}
 * ({@value #CONTAINERS}); suites ask {@link TestServers} for their endpoints.
 */
public final class ServiceEnvironment {

	/** Variable holding the Redis URL. */
	public static final String REDIS_URL = "STARINTEL_REDIS_URL";

	/** Variable holding the Valkey URL. */
	public static final String VALKEY_URL = "STARINTEL_VALKEY_URL";

	/** Variable holding the path of the {@code valkey-server} binary that launching suites start. */
	public static final String VALKEY_SERVER = "STARINTEL_VALKEY_SERVER";

	/** Variable holding the RabbitMQ host. */
	public static final String RABBIT_HOST = "STARINTEL_RABBIT_HOST";

	/** Variable holding the RabbitMQ AMQP port. */
	public static final String RABBIT_PORT = "STARINTEL_RABBIT_PORT";

	/** Variable holding the pouchdb-server URL. */
	public static final String COUCHDB_URL = "STARINTEL_COUCHDB_URL";

	/** Variable holding the Apache CouchDB URL. */
	public static final String COUCHDB_REAL_URL = "STARINTEL_COUCHDB_REAL_URL";

	/** Variable holding the Apache CouchDB administrator's name. */
	public static final String COUCHDB_REAL_USER = "STARINTEL_COUCHDB_REAL_USER";

	/** Variable holding the Apache CouchDB administrator's password. */
	public static final String COUCHDB_REAL_PASSWORD = "STARINTEL_COUCHDB_REAL_PASSWORD";

	/**
	 * Variable choosing between containers and these local servers: {@code true}, {@code false} or {@code auto} (the
	 * default), see {@link TestServers}.
	 */
	public static final String CONTAINERS = "STARINTEL_CONTAINERS";

	private ServiceEnvironment() {
	}

	/** The variable's value, or {@code fallback} when it is unset or blank. */
	public static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? fallback : value;
	}

	/** The shared Redis server. */
	public static URI redisUri() {
		return URI.create(env(REDIS_URL, "redis://127.0.0.1:6379"));
	}

	/** The shared Valkey server. */
	public static URI valkeyUri() {
		return URI.create(env(VALKEY_URL, "redis://127.0.0.1:6390"));
	}

	/** The RabbitMQ host. */
	public static String rabbitHost() {
		return env(RABBIT_HOST, "127.0.0.1");
	}

	/** The RabbitMQ AMQP port. */
	public static int rabbitPort() {
		return Integer.parseInt(env(RABBIT_PORT, "5672"));
	}

	/** The Apache CouchDB server and its administrator (default admin/admin). */
	public static TestServers.CouchDb apacheCouchDb() {
		return new TestServers.CouchDb(env(COUCHDB_REAL_URL, "http://127.0.0.1:5986"), env(COUCHDB_REAL_USER, "admin"),
				env(COUCHDB_REAL_PASSWORD, "admin"));
	}

	/** The pouchdb-server URL. */
	public static String couchDbUrl() {
		return env(COUCHDB_URL, "http://127.0.0.1:5984");
	}

}
