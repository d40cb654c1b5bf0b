package io.starintel.lease.it.nonboot;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A plain Java program (no Spring Boot on the classpath, no application context) builds the Redis store from a
 * Spring Data Redis {@link LettuceConnectionFactory} and runs acquire, renew, authorize-commit and release against
 * real Redis ({@code STARINTEL_REDIS_URL}, default {@code redis://127.0.0.1:6379}); outside CI a missing server
 * skips the test, in CI ({@code CI=true}) it fails.
 */
class NonBootProgramTests {

	private LettuceConnectionFactory factory;

	@BeforeEach
	void connect() {
		URI uri = URI.create(System.getenv().getOrDefault("STARINTEL_REDIS_URL", "redis://127.0.0.1:6379"));
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		this.factory.afterPropertiesSet();
		this.factory.start();
		try (var connection = this.factory.getConnection()) {
			connection.ping();
		}
		catch (RuntimeException ex) {
			if ("true".equals(System.getenv("CI"))) {
				throw ex;
			}
			Assumptions.abort("no Redis at " + uri + ": " + ex.getMessage());
		}
	}

	@AfterEach
	void disconnect() {
		this.factory.destroy();
	}

	@Test
	void springBootIsNotOnTheClasspath() {
		assertThatExceptionOfType(ClassNotFoundException.class)
			.isThrownBy(() -> Class.forName("org.springframework.boot.SpringApplication"));
		assertThatExceptionOfType(ClassNotFoundException.class).isThrownBy(
				() -> Class.forName("io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration"));
	}

	@Test
	void acquireRenewAuthorizeReleaseOnRealRedis() {
		LeaseStore store = RedisLeaseStore.builder(this.factory)
			.policy(LeasePolicy.defaults())
			.alerts(LeaseAlerts.LOG)
			.build();
		LockIdentity identity = LockIdentity.of("tenant-plain", "p-" + UUID.randomUUID().toString().substring(0, 8),
				"starintel-target", "target-1", "plain-java", "default", null);
		LeaseOwner owner = new LeaseOwner("prn_plain", "client_plain", "key_plain", "instance-1");

		LeaseResult acquired = store.acquire(AcquireRequest.builder(identity, owner)
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build("request-" + UUID.randomUUID(), deadline()));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		LeaseRecord lease = acquired.lease();
		assertThat(lease.fencingToken()).isPositive();

		LeaseResult renewed = store.renew(new RenewRequest(lease.handle(), "request-" + UUID.randomUUID(), deadline()));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().fencingToken()).isEqualTo(lease.fencingToken());

		LeaseResult authorized = store.authorizeCommit(new CommitRequest(lease.handle(), "corr-1", deadline()));
		assertThat(authorized.code()).isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);

		LeaseResult released = store.release(new ReleaseRequest(lease.handle(), "request-" + UUID.randomUUID(),
				deadline()));
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(store.inspect(InspectRequest.byIdentity(identity, "corr-2", deadline())).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
		// a stale holder can no longer commit
		assertThat(store.authorizeCommit(new CommitRequest(lease.handle(), "corr-3", deadline())).code())
			.isEqualTo(ResultCode.LEASE_LOST);
	}

	private static Instant deadline() {
		return Instant.now().plusSeconds(10);
	}

}
