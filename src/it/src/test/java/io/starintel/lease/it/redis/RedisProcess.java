package io.starintel.lease.it.redis;

import java.io.IOException;
import java.nio.file.Files;

import io.starintel.lease.test.RedisServerProcess;

/**
 * A throw-away server of the requested kind ({@link RedisServerKind#requireServerBinary()}), started through the
 * one launcher ({@link RedisServerProcess}) on its own loopback port without persistence, so that a test can restart
 * it and lose every key (the data-loss row of the contract). Each start checks that the server is of that kind.
 */
final class RedisProcess implements AutoCloseable {

	private final RedisServerKind kind;

	private final RedisServerProcess server;

	private RedisProcess(RedisServerKind kind, RedisServerProcess server) {
		this.kind = kind;
		this.server = server;
		RedisServers.verify(kind, "127.0.0.1", server.port());
	}

	/** Starts a Redis server on a free port. */
	static RedisProcess start() throws IOException {
		return start(RedisServerKind.REDIS);
	}

	/** Starts a server of the given kind on a free port. */
	static RedisProcess start(RedisServerKind kind) throws IOException {
		return new RedisProcess(kind, RedisServerProcess.start(kind.requireServerBinary(), freePort(),
				Files.createTempDirectory("lease-redis-")));
	}

	int port() {
		return this.server.port();
	}

	/** Stops the server (losing everything: no RDB, no AOF) and starts a fresh one on the same port. */
	void restartEmpty() throws IOException {
		this.server.restartEmpty();
		RedisServers.verify(this.kind, "127.0.0.1", this.server.port());
	}

	@Override
	public void close() {
		this.server.close();
	}

	static int freePort() throws IOException {
		return RedisServerProcess.freePort();
	}

}
