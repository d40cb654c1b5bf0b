package io.starintel.lease.it.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Base of the suites that use the shared local Redis: one started connection factory per class. Each test works
 * in its own program (hash tag), so nothing needs FLUSHALL.
 */
abstract class SharedRedisTests {

	protected static LettuceConnectionFactory factory;

	@BeforeAll
	static void connectSharedRedis() {
		factory = RedisServers.factory();
	}

	@AfterAll
	static void disconnectSharedRedis() {
		factory.destroy();
	}

}
