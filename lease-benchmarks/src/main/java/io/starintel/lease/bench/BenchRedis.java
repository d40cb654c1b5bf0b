package io.starintel.lease.bench;

import java.net.URI;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis under test: system property {@code bench.redis} (set by {@code scripts/bench.sh}), else
 * {@code STARINTEL_REDIS_URL}, else {@code redis://127.0.0.1:6379}; with its replica when the run has one
 * ({@code bench.replicaPerLibrary}, {@code scripts/bench.sh --replica}).
 *
 * @param uri the primary every library call goes to
 * @param replica the primary's replica ({@code replicaof}), or null: libraries with a replica check (Redisson's
 * master/replica configuration, the {@code -wait} references) then wait for it, and the run reports its CPU
 */
public record BenchRedis(URI uri, @Nullable URI replica) {

	/** A server without a replica. */
	public BenchRedis(URI uri) {
		this(uri, null);
	}

	/** The configured Redis. */
	public static BenchRedis fromEnvironment() {
		String url = System.getProperty("bench.redis");
		if (url == null || url.isBlank()) {
			url = System.getenv("STARINTEL_REDIS_URL");
		}
		if (url == null || url.isBlank()) {
			url = "redis://127.0.0.1:6379";
		}
		String replica = System.getProperty("bench.replica");
		return new BenchRedis(URI.create(url), (replica == null || replica.isBlank()) ? null : URI.create(replica));
	}

	/**
	 * The Redis of one library: its entry in {@code bench.redisPerLibrary} ({@code library=url,...}, set by
	 * {@code scripts/bench.sh}: one private server per library, so that each library's keyspace holds only its own
	 * keys, as a user's Redis would), else {@link #fromEnvironment()}.
	 */
	public static BenchRedis forLibrary(String library) {
		String primary = entry("bench.redisPerLibrary", library);
		if (primary == null) {
			return fromEnvironment();
		}
		String replica = entry("bench.replicaPerLibrary", library);
		return new BenchRedis(URI.create(primary), (replica != null) ? URI.create(replica) : null);
	}

	/** The value of {@code library} in a {@code library=url,...} list, or null. */
	private static @Nullable String entry(String property, String library) {
		for (String entry : System.getProperty(property, "").split(",")) {
			int equals = entry.indexOf('=');
			if (equals > 0 && entry.substring(0, equals).trim().equals(library)) {
				return entry.substring(equals + 1).trim();
			}
		}
		return null;
	}

	/** The replica as a server of its own (its counters), or null without one. */
	public @Nullable BenchRedis replicaServer() {
		return (this.replica != null) ? new BenchRedis(this.replica) : null;
	}

	/** {@code redis://host:port} of the replica, or null without one. */
	public @Nullable String replicaUrl() {
		BenchRedis server = replicaServer();
		return (server != null) ? server.url() : null;
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

	/**
	 * Adds {@code count} string keys of {@code bytes} bytes ({@code bench:fill:<n>}, {@code PX} 25 h, the default
	 * idempotency retention) to the server, unless it already holds that many of them: the keyspace of a shared Redis
	 * that also serves other applications ({@code bench.fillKeys}). One {@code EVAL} per 10,000 keys.
	 * @return the keys added
	 */
	public long fill(long count, int bytes) {
		if (count <= 0) {
			return 0;
		}
		RedisClient client = RedisClient.create(url());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String script = """
					local added = 0
					local value = string.rep('x', tonumber(ARGV[3]))
					for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do
					  if redis.call('SET', 'bench:fill:' .. i, value, 'PX', '90000000', 'NX') then added = added + 1 end
					end
					return added
					""";
			long added = 0;
			for (long from = 1; from <= count; from += 10_000) {
				long to = Math.min(count, from + 9_999);
				Long n = connection.sync().eval(script, ScriptOutputType.INTEGER, new String[0], Long.toString(from),
						Long.toString(to), Integer.toString(bytes));
				added += (n != null) ? n : 0;
			}
			return added;
		}
		finally {
			client.shutdown();
		}
	}

}
