package io.starintel.lease.bench;

import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Spring Integration's {@link RedisLockRegistry} with its defaults (spin lock type): {@code obtain(key).tryLock()} per cycle
 * and {@code unlock()}. No fencing token. Threads of one JVM asking for the same key meet the registry's local lock
 * first, so a contended attempt can fail without a Redis call.
 */
final class IntegrationLibrary implements LockLibrary {

	private static final long EXPIRE_AFTER_MS = 30_000;

	private final LettuceConnectionFactory factory;

	private final RedisLockRegistry registry;

	IntegrationLibrary(BenchRedis redis, String cell) {
		this.factory = redis.connectionFactory();
		this.registry = new RedisLockRegistry(this.factory, "bench:" + cell, EXPIRE_AFTER_MS);
	}

	@Override
	public LockCycle open(String key, int thread) {
		return () -> {
			Lock lock = this.registry.obtain(key);
			if (!lock.tryLock()) {
				return false;
			}
			lock.unlock();
			return true;
		};
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.factory.destroy();
	}

}
