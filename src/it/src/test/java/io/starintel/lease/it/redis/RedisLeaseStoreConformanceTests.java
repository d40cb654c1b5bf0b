package io.starintel.lease.it.redis;

import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.test.conformance.LeaseStoreConformanceKit;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The conformance kit against a real Redis (and, in {@link ValkeyLeaseStoreConformanceTests}, a real Valkey): every
 * test in its own program (hash tag), so nothing needs FLUSHALL and classes can share the server.
 */
class RedisLeaseStoreConformanceTests extends LeaseStoreConformanceKit {

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate redis;

	@BeforeAll
	static void connect(TestInfo testInfo) {
		factory = RedisServers.factory(RedisServerKind.of(testInfo));
		redis = new StringRedisTemplate(factory);
	}

	@AfterAll
	static void disconnect() {
		if (factory != null) {
			factory.destroy();
			factory = null;
		}
	}

	@Override
	public LeaseStore createStore() {
		return RedisServers.store(factory);
	}

	@Override
	public LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys) {
		return new RedisLeaseStore(factory, RedisServers.POLICY.withAttachedKeyBounds(maximumKeys, 64 * 1024),
				LeaseAlerts.LOG);
	}

	/** Real backend time cannot be moved: wait until it has passed (polling the server's clock). */
	@Override
	public void advanceBackendTime(long millis) {
		RedisServers.awaitServerTimePassed(redis, millis);
	}

	@Override
	public void setFencingCounter(LockIdentity identity, long value) {
		redis.opsForHash().put(RedisKeys.of(identity).fence(identity.keyDigest()), "counter", Long.toString(value));
	}

}
