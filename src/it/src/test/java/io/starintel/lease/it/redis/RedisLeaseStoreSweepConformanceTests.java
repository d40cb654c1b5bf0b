package io.starintel.lease.it.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.test.conformance.LeaseStoreSweepConformanceKit;
import io.starintel.lease.test.conformance.SweepFixture;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The sweep and limit rows against a real Redis (and, in {@link ValkeyLeaseStoreSweepConformanceTests}, a real
 * Valkey); the concurrent-sweepers row uses three stores, each with its own connection factory.
 */
class RedisLeaseStoreSweepConformanceTests extends LeaseStoreSweepConformanceKit {

	private static RedisServerKind kind;

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate redis;

	private static final List<LettuceConnectionFactory> others = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void connect(TestInfo testInfo) {
		kind = RedisServerKind.of(testInfo);
		factory = RedisServers.factory(kind);
		redis = new StringRedisTemplate(factory);
	}

	@AfterAll
	static void disconnect() {
		if (factory != null) {
			factory.destroy();
			factory = null;
		}
		others.forEach(LettuceConnectionFactory::destroy);
		others.clear();
	}

	@Override
	public LeaseStore createStore(LeasePolicy policy) {
		return new RedisLeaseStore(factory, policy, LeaseAlerts.LOG);
	}

	/** Another client: its own connection factory. */
	@Override
	public LeaseStore sameBackend(LeaseStore current) {
		LettuceConnectionFactory other = RedisServers.factory(kind);
		others.add(other);
		return new RedisLeaseStore(other, SweepFixture.TEST_POLICY, LeaseAlerts.LOG);
	}

	/** Real backend time cannot be moved: wait until it has passed (polling the server's clock). */
	@Override
	public void advanceBackendTime(long millis) {
		RedisServers.awaitServerTimePassed(redis, millis);
	}

}
