package io.starintel.lease.bench;

import java.net.URI;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis under test: system property {@code bench.redis} (set by {@code scripts/bench.sh}), else
 * {@code STARINTEL_REDIS_URL}, else {@code redis://127.0.0.1:6379}.
 */
public record BenchRedis(URI uri) {

	/** The configured Redis. */
	public static BenchRedis fromEnvironment() {
		String url = System.getProperty("bench.redis");
		if (url == null || url.isBlank()) {
			url = System.getenv("STARINTEL_REDIS_URL");
		}
		if (url == null || url.isBlank()) {
			url = "redis://127.0.0.1:6379";
		}
		return new BenchRedis(URI.create(url));
	}

	/**
	 * The Redis of one library: its entry in {@code bench.redisPerLibrary} ({@code library=url,...}, set by
	 * {@code scripts/bench.sh}: one private server per library, so that each library's keyspace holds only its own
	 * keys, as a user's Redis would), else {@link #fromEnvironment()}.
	 */
	public static BenchRedis forLibrary(String library) {
		for (String entry : System.getProperty("bench.redisPerLibrary", "").split(",")) {
			int equals = entry.indexOf('=');
			if (equals > 0 && entry.substring(0, equals).trim().equals(library)) {
				return new BenchRedis(URI.create(entry.substring(equals + 1).trim()));
			}
		}
		return fromEnvironment();
	}

	/** Host name. */
	public String host() {
		return (this.uri.getHost() != null) ? this.uri.getHost() : "127.0.0.1";
	}

	/** Port. */
	public int port() {
		return (this.uri.getPort() > 0) ? this.uri.getPort() : 6379;
	}

	/** {@code redis://host:port}, the form Redisson and Lettuce take. */
	public String url() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * A started Spring Data Redis Lettuce factory with Boot's defaults (one shared native connection), as
	 * ShedLock's and Spring Integration's users wire them.
	 */
	public LettuceConnectionFactory connectionFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host(), port()), LettuceClientConfiguration.defaultConfiguration());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
