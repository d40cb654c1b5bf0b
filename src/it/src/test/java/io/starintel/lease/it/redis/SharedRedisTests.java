package io.starintel.lease.it.redis;

import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Base of the suites that use the shared local servers: every subclass runs once on Redis and once on Valkey
 * ({@link OnRedisAndValkey}), with one started connection factory per run. Each test works in its own program
 * (hash tag), so nothing needs FLUSHALL.
 */
@OnRedisAndValkey
abstract class SharedRedisTests {

	/** The kind of server of the current run (also declares the run's one argument to JUnit). */
	@Parameter
	protected RedisServerKind server;

	protected static LettuceConnectionFactory factory;

	@BeforeParameterizedClassInvocation
	static void connectSharedServer(RedisServerKind kind) {
		factory = RedisServers.factory(kind);
	}

	@AfterParameterizedClassInvocation
	static void disconnectSharedServer() {
		if (factory != null) {
			factory.destroy();
			factory = null;
		}
	}

}
