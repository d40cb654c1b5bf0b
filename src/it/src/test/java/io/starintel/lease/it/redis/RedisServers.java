package io.starintel.lease.it.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * Connection factories for the real servers the integration suites use: Redis ({@code STARINTEL_REDIS_URL} or
 * {@code redis://127.0.0.1:6379}) and, for the {@code Valkey…Tests} subclasses of the store suites ({@link RunsOn}),
 * Valkey ({@code STARINTEL_VALKEY_URL} or {@code redis://127.0.0.1:6390}), or their containers when the run uses
 * containers (lease-test-support's {@code TestServers}); see {@link RedisServerKind}. Every server a suite connects to
 * or starts is checked to be the kind it claims ({@code INFO server}).
 */
public final class RedisServers {

	/** The policy the suites use: TTLs from 100 ms so that expiry can be shown in seconds. */
	public static final LeasePolicy POLICY = LeasePolicy.defaults()
		.withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10));

	private static final Logger logger = LoggerFactory.getLogger(RedisServers.class);

	private static final Map<String, String> REPORTED = new ConcurrentHashMap<>();

	private RedisServers() {
	}

	/** The shared Redis server's URI. */
	public static URI uri() {
		return RedisServerKind.REDIS.uri();
	}

	/** A started factory for the shared Redis server. */
	public static LettuceConnectionFactory factory() {
		URI uri = uri();
		return factory(uri.getHost(), uri.getPort());
	}

	/**
	 * A started factory for the shared server of a kind, after checking that it answers and is that kind of server
	 * (a missing Valkey outside CI aborts the caller's tests, see {@link RedisServerKind}).
	 */
	public static LettuceConnectionFactory factory(RedisServerKind kind) {
		URI uri = kind.uri();
		try {
			verify(kind, uri.getHost(), uri.getPort());
		}
		catch (RedisConnectionException ex) {
			throw kind.unavailable("nothing answers at " + uri + " (" + ex.getMessage() + ")");
		}
		return factory(uri.getHost(), uri.getPort());
	}

	/**
	 * Checks with {@code INFO server} that the server at host:port is of the given kind, prints its version once
	 * per address, and returns that version.
	 * @throws IllegalStateException when it is another kind of server
	 * @throws RedisConnectionException when it cannot be reached
	 */
	public static String verify(RedisServerKind kind, String host, int port) {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost(host)
			.withPort(port)
			.withTimeout(Duration.ofSeconds(10))
			.build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String info = connection.sync().info("server");
			if (!kind.isThisServer(info)) {
				throw new IllegalStateException(host + ":" + port + " is not " + kind + " (INFO server: "
						+ info.lines().filter((line) -> line.contains("version") || line.startsWith("server_name"))
							.toList()
						+ ")");
			}
			String version = kind.version(info);
			if (REPORTED.put(host + ":" + port + " " + kind, version) == null) {
				logger.info("{} {} at {}:{}", kind, version, host, port);
			}
			return version;
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	/** A started factory for a server on a given host and port. */
	public static LettuceConnectionFactory factory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** Whether a server answers a RESP {@code PING} at host:port within half a second. */
	static boolean answersPing(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			socket.setSoTimeout(500);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] buffer = new byte[7];
			int read = in.read(buffer);
			return read > 0 && new String(buffer, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** The server's clock ({@code TIME}) in epoch milliseconds. */
	public static long serverMillis(StringRedisTemplate redis) {
		return redis.execute(connection -> connection.serverCommands().time(), true);
	}

	/**
	 * Waits until the server's clock has moved {@code millis} forward: real backend time cannot be moved, so the
	 * conformance kits' {@code advanceBackendTime} polls it (Awaitility, bounded at ten times the wait plus a second).
	 */
	public static void awaitServerTimePassed(StringRedisTemplate redis, long millis) {
		long target = serverMillis(redis) + millis;
		await().atMost(Duration.ofMillis(millis * 10 + 1000))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> serverMillis(redis) >= target);
	}

	/** A Redis store on a factory with the suites' policy. */
	public static RedisLeaseStore store(LettuceConnectionFactory factory) {
		return new RedisLeaseStore(factory, POLICY, LeaseAlerts.LOG);
	}

}
