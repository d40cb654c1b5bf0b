package io.starintel.lease.it.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * A throw-away {@code redis-server} or {@code valkey-server} ({@link RedisServerKind#requireServerBinary()}) started
 * by a test on its own loopback port, without persistence, so that a test can restart it and lose every key (the
 * data-loss row of the contract). Each start checks that the server is of the requested kind.
 */
final class RedisProcess implements AutoCloseable {

	private final RedisServerKind kind;

	private final Path binary;

	private final int port;

	private final Path directory;

	private Process process;

	private RedisProcess(RedisServerKind kind, Path binary, int port, Path directory) {
		this.kind = kind;
		this.binary = binary;
		this.port = port;
		this.directory = directory;
	}

	/** Starts a Redis server on a free port. */
	static RedisProcess start() throws IOException {
		return start(RedisServerKind.REDIS);
	}

	/** Starts a server of the given kind on a free port. */
	static RedisProcess start(RedisServerKind kind) throws IOException {
		RedisProcess server = new RedisProcess(kind, kind.requireServerBinary(), freePort(),
				Files.createTempDirectory("lease-redis-"));
		server.launch();
		return server;
	}

	int port() {
		return this.port;
	}

	/** Stops the server (losing everything: no RDB, no AOF) and starts a fresh one on the same port. */
	void restartEmpty() throws IOException {
		stop();
		launch();
	}

	private void launch() throws IOException {
		this.process = new ProcessBuilder(this.binary.toString(), "--port", Integer.toString(this.port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.directory.toString())
			.redirectErrorStream(true)
			.redirectOutput(this.directory.resolve("redis.log").toFile())
			.start();
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(this::answersPing);
		RedisServers.verify(this.kind, "127.0.0.1", this.port);
	}

	private boolean answersPing() {
		return RedisServers.answersPing("127.0.0.1", this.port);
	}

	private void stop() {
		if (this.process != null) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> !answersPing());
		}
	}

	@Override
	public void close() {
		stop();
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
