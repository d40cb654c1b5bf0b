package io.starintel.lease.autoconfigure.fence;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

/**
 * Finds the Redis lease store whose fence calls the fences use, through whatever decorates the lease store bean (a
 * test double stands in the bean's place under the test starter).
 */
final class RedisFenceCalls {

	private RedisFenceCalls() {
	}

	/** The Redis store behind the single lease store bean, or null when there is none (or not exactly one). */
	static @Nullable RedisLeaseStore redisStore(ObjectProvider<LeaseStore> stores) {
		LeaseStore store = stores.getIfUnique();
		return (store != null) ? store.unwrap(RedisLeaseStore.class).orElse(null) : null;
	}

	/** Whether the single lease store bean is (or decorates) the in-memory store. */
	static boolean inMemory(ObjectProvider<LeaseStore> stores) {
		LeaseStore store = stores.getIfUnique();
		return store != null && store.unwrap(InMemoryLeaseStore.class).isPresent();
	}

}
