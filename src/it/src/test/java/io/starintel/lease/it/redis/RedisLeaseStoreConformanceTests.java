package io.starintel.lease.it.redis;

import java.time.Duration;

import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.LeaseStoreConformanceKit;
import io.starintel.lease.store.redis.RedisKeys;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * The conformance kit against a real Redis and a real Valkey ({@link OnRedisAndValkey}): every test in its own
 * program (hash tag), so nothing needs FLUSHALL and classes can share the server.
 */
@OnRedisAndValkey
class RedisLeaseStoreConformanceTests extends LeaseStoreConformanceKit {

	/** The kind of server of the current run (declares the run's one argument to JUnit). */
	@Parameter
	private RedisServerKind server;

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate redis;

	@BeforeParameterizedClassInvocation
	static void connect(RedisServerKind kind) {
		factory = RedisServers.factory(kind);
		redis = new StringRedisTemplate(factory);
	}

	@AfterParameterizedClassInvocation
	static void disconnect() {
		if (factory != null) {
			factory.destroy();
			factory = null;
		}
	}

	@Override
	protected LeaseStore createStore() {
		return RedisServers.store(factory);
	}

	/** Real backend time cannot be moved: wait until it has passed (Awaitility, polling the server's clock). */
	@Override
	protected void advanceBackendTime(long millis) {
		long target = serverMillis() + millis;
		await().atMost(Duration.ofMillis(millis * 10 + 1000))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> serverMillis() >= target);
	}

	@Override
	protected void setFencingCounter(LockIdentity identity, long value) {
		redis.opsForHash().put(RedisKeys.of(identity).fence(identity.keyDigest()), "counter", Long.toString(value));
	}

	private static long serverMillis() {
		return redis.execute(connection -> connection.serverCommands().time(), true);
	}

}
