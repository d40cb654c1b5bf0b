package io.starintel.lease.it.fence;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.store.redis.RedisLeaseStore;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lease side of the fence suites: the real {@link RedisLeaseStore} on the shared server of a kind (Redis, or
 * Valkey for the {@code Valkey…Tests} subclasses, {@link RedisServerKind#of(Class)}; checked with
 * {@code INFO server}), a {@link FenceGuard}, and helpers to acquire and to wait (on the server's clock) until a lease
 * has expired. Each fixture uses its own program, so suites share the server without cleanup.
 */
final class FenceFixture implements AutoCloseable {

	/** The kind of server the lease store (and every fence key) is on. */
	final RedisServerKind server;

	final LettuceConnectionFactory factory;

	final StringRedisTemplate redis;

	final RedisLeaseStore store;

	final FenceGuard guard;

	final String tenant = "tenant-fence";

	final String program = "p-" + UUID.randomUUID().toString().substring(0, 8);

	/** A fixture on the shared Redis. */
	FenceFixture() {
		this(RedisServerKind.REDIS);
	}

	/** A fixture on the shared server of a kind. */
	FenceFixture(RedisServerKind server) {
		this.server = server;
		this.factory = RedisServers.factory(server);
		this.redis = new StringRedisTemplate(this.factory);
		this.redis.afterPropertiesSet();
		this.store = RedisServers.store(this.factory);
		this.guard = new FenceGuard(this.store);
	}

	LockIdentity identity(String target) {
		return LockIdentity.of(this.tenant, this.program, "starintel-target", target, "usernamegen", "default", null);
	}

	/** Acquires a lease (the identity must be free) and returns its context. */
	LeaseContext acquire(LockIdentity identity, String owner, long ttlMs) {
		LeaseResult result = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(30), new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), ttlMs,
				300_000, Identifiers.generate("execution"), "job_1", Identifiers.generate("trace"),
				LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return new LeaseContext(result.lease());
	}

	/** Waits until the server's clock has passed the lease's expiry (no sleeps: Awaitility polls TIME). */
	void awaitExpired(LeaseContext context) {
		long expiresAt = context.expiresAt().toEpochMilli();
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> serverMillis() >= expiresAt);
	}

	long serverMillis() {
		return this.redis.execute(connection -> connection.serverCommands().time(), true);
	}

	@Override
	public void close() {
		this.factory.destroy();
	}

}
