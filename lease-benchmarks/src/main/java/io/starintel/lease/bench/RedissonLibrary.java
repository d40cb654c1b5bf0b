package io.starintel.lease.bench;

import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@link RFencedLock}, the one peer that issues a fencing token: {@code getFencedLock(name).tryLockAndGetToken(0, ttl)} per cycle (no
 * wait, explicit lease time, so no watchdog) and {@code unlock()}, with Redisson's default single-server pool.
 */
final class RedissonLibrary implements LockLibrary {

	private static final long LEASE_MS = 30_000;

	private final RedissonClient redisson;

	private final String cell;

	RedissonLibrary(BenchRedis redis, String cell) {
		this.cell = cell;
		Config config = new Config();
		config.useSingleServer().setAddress(redis.url());
		this.redisson = Redisson.create(config);
	}

	@Override
	public LockCycle open(String key, int thread) {
		String name = "{bench:" + this.cell + "}:" + key;
		return () -> {
			RFencedLock lock = this.redisson.getFencedLock(name);
			Long token = lock.tryLockAndGetToken(0, LEASE_MS, TimeUnit.MILLISECONDS);
			if (token == null) {
				return false;
			}
			lock.unlock();
			return true;
		};
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
