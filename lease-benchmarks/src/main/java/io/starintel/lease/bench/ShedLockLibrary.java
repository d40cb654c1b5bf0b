package io.starintel.lease.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * ShedLock's Spring Data Redis provider with safe unlock ({@code safeUpdate(true)}: unlock deletes the lock only
 * while it still holds this holder's value). No fencing token.
 */
final class ShedLockLibrary implements LockLibrary {

	private static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(30);

	private final LettuceConnectionFactory factory;

	private final RedisLockProvider provider;

	private final String cell;

	ShedLockLibrary(BenchRedis redis, String cell) {
		this.cell = cell;
		this.factory = redis.connectionFactory();
		this.provider = new RedisLockProvider.Builder(this.factory).environment("bench").safeUpdate(true).build();
	}

	@Override
	public LockCycle open(String key, int thread) {
		String name = this.cell + ":" + key;
		return () -> {
			Optional<SimpleLock> lock = this.provider
				.lock(new LockConfiguration(Instant.now(), name, LOCK_AT_MOST_FOR, Duration.ZERO));
			if (lock.isEmpty()) {
				return false;
			}
			lock.get().unlock();
			return true;
		};
	}

	@Override
	public void close() {
		this.factory.destroy();
	}

}
