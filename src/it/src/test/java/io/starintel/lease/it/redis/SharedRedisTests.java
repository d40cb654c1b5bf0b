package io.starintel.lease.it.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Base of the suites that use a shared local server: one started connection factory per class, for the server
 * kind of the running class ({@link RunsOn}: Redis, or Valkey in the {@code Valkey…Tests} subclasses). Each test
 * works in its own program (hash tag), so nothing needs FLUSHALL.
 */
abstract class SharedRedisTests {

	/** The kind of server of the running class. */
	protected static RedisServerKind server;

	protected static LettuceConnectionFactory factory;

	@BeforeAll
	static void connectSharedRedis(TestInfo testInfo) {
		server = RedisServerKind.of(testInfo);
		factory = RedisServers.factory(server);
	}

	@AfterAll
	static void disconnectSharedRedis() {
		if (factory != null) {
			factory.destroy();
			factory = null;
		}
	}

}
