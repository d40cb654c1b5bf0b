package io.starintel.lease.it.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.starintel.lease.test.RedisServerProcess;
import io.starintel.lease.test.TestContainers;
import io.starintel.lease.test.TestServers;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.GenericContainer;

import static org.awaitility.Awaitility.await;

/**
 * A throw-away server of the requested kind, on its own port without persistence, so that a test can restart it and
 * lose every key (the data-loss row of the contract). Each start checks that the server is of that kind.
 *
 * <ul>
 * <li>With containers ({@link TestServers}): a container of the kind's image
 * ({@link TestContainers#restartableRedis}) whose shell restarts the server when it exits; a restart is
 * {@code SHUTDOWN NOSAVE}, and the container keeps its published port.</li>
 * <li>Otherwise: the kind's binary ({@link RedisServerKind#requireServerBinary()}) through the one launcher
 * ({@link RedisServerProcess}) on a free loopback port.</li>
 * </ul>
 */
final class RedisProcess implements AutoCloseable {

	private final RedisServerKind kind;

	private final @Nullable RedisServerProcess server;

	private final @Nullable GenericContainer<?> container;

	private RedisProcess(RedisServerKind kind, @Nullable RedisServerProcess server,
			@Nullable GenericContainer<?> container) {
		this.kind = kind;
		this.server = server;
		this.container = container;
		RedisServers.verify(kind, host(), port());
	}

	/** Starts a Redis server on a free port. */
	static RedisProcess start() throws IOException {
		return start(RedisServerKind.REDIS);
	}

	/** Starts a server of the given kind on a free port. */
	static RedisProcess start(RedisServerKind kind) throws IOException {
		if (TestServers.containers()) {
			GenericContainer<?> container = null;
			try {
				container = TestContainers.restartableRedis(kind.image());
				container.start();
			}
			catch (RuntimeException ex) {
				if (container != null) {
					container.stop();
				}
				throw kind.unavailable("its restartable container did not start: " + ex.getMessage());
			}
			return new RedisProcess(kind, null, container);
		}
		return new RedisProcess(kind, RedisServerProcess.start(kind.requireServerBinary(), freePort(),
				Files.createTempDirectory("lease-redis-")), null);
	}

	String host() {
		return (this.container != null) ? this.container.getHost() : "127.0.0.1";
	}

	int port() {
		if (this.container != null) {
			return this.container.getMappedPort(TestContainers.REDIS_PORT);
		}
		return this.server.port();
	}

	/** Stops the server (losing everything: no RDB, no AOF) and starts a fresh one on the same port. */
	void restartEmpty() throws IOException {
		if (this.container != null) {
			shutdownNoSave();
			await(this.kind + " restarted in its container").atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> RedisServers.answersPing(host(), port()));
		}
		else {
			this.server.restartEmpty();
		}
		RedisServers.verify(this.kind, host(), port());
	}

	/** {@code SHUTDOWN NOSAVE}: the server exits (the connection drops with it) and the container's shell restarts it. */
	private void shutdownNoSave() {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost(host())
			.withPort(port())
			.withTimeout(Duration.ofSeconds(5))
			.build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String runId = connection.sync().info("server").lines()
				.filter((line) -> line.startsWith("run_id:"))
				.findFirst()
				.orElse("");
			try {
				connection.sync().shutdown(false);
			}
			catch (RedisException ex) {
				// the server may drop the connection before Lettuce completes the command: the wait below decides
			}
			await(this.kind + " stopped").atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(50))
				.ignoreExceptions()
				.until(() -> !RedisServers.answersPing(host(), port()) || !runId(runId));
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	/** Whether the server that answers now still has the given run id (the same process). */
	private boolean runId(String runId) {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost(host())
			.withPort(port())
			.withTimeout(Duration.ofSeconds(1))
			.build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().info("server").contains(runId);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
		}
	}

	@Override
	public void close() {
		if (this.container != null) {
			this.container.stop();
		}
		else {
			this.server.close();
		}
	}

	static int freePort() throws IOException {
		return RedisServerProcess.freePort();
	}

}
