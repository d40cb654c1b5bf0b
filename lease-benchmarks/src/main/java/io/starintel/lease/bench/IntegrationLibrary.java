package io.starintel.lease.bench;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Spring Integration's {@link RedisLockRegistry} with its defaults (spin lock type): {@code obtain(key).tryLock()}
 * and {@code unlock()} per cycle. No fencing token. Each benchmark thread gets a registry of its own (as if each were
 * an application instance) over the one shared connection factory: threads sharing one registry would meet its
 * JVM-local lock first, and a contended attempt would then never reach Redis.
 */
final class IntegrationLibrary implements LockLibrary {

	private static final long EXPIRE_AFTER_MS = 30_000;

	private final LettuceConnectionFactory factory;

	private final String registryKey;

	private final List<RedisLockRegistry> registries = new CopyOnWriteArrayList<>();

	IntegrationLibrary(BenchRedis redis, String cell) {
		this.factory = redis.connectionFactory();
		this.registryKey = "bench:" + cell;
	}

	@Override
	public LockCycle open(String key, int thread) {
		RedisLockRegistry registry = new RedisLockRegistry(this.factory, this.registryKey, EXPIRE_AFTER_MS);
		this.registries.add(registry);
		return () -> {
			Lock lock = registry.obtain(key);
			if (!lock.tryLock()) {
				return false;
			}
			lock.unlock();
			return true;
		};
	}

	@Override
	public void close() {
		this.registries.forEach(RedisLockRegistry::destroy);
		this.factory.destroy();
	}

}
