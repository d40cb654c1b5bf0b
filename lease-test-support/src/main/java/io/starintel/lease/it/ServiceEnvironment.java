package io.starintel.lease.it;

/**
 * Where the suites find the real servers: an environment variable ({@code STARINTEL_REDIS_URL},
 * {@code STARINTEL_VALKEY_URL}, {@code STARINTEL_RABBIT_HOST}, {@code STARINTEL_COUCHDB_URL}) when set, else the
 * local default that {@code scripts/services.sh} starts. The Redis and Valkey endpoints and server binaries are
 * resolved in {@code redis.RedisServerKind}.
 */
public final class ServiceEnvironment {

	private ServiceEnvironment() {
	}

	/** The variable's value, or {@code fallback} when it is unset or blank. */
	public static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? fallback : value;
	}

}
