package io.starintel.lease.testing;

import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.testing.app.JobApplication;
import io.starintel.lease.testing.testcontainers.CouchDbContainer;
import io.starintel.lease.testing.testcontainers.ValkeyContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scenarios with Testcontainers: a {@code @ServiceConnection} {@link ValkeyContainer} (no {@code name = "redis"})
 * selects the Redis store, and a {@code @ServiceConnection} {@link CouchDbContainer} reaches the application's own
 * CouchDB property through {@code starintel.lease.test.couchdb.url}: the job's fenced writes go to a real Apache
 * CouchDB. Skipped when no Docker engine answers.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(classes = JobApplication.class, properties = "app.couchdb-url=${starintel.lease.test.couchdb.url}")
@AutoConfigureLeaseTest
class ContainersLeaseTests extends LeasedJobScenarios {

	@Container
	@ServiceConnection
	static ValkeyContainer valkey = new ValkeyContainer(Images.image("valkey", "valkey:8.0.1-local", "valkey/valkey:8"));

	@Container
	@ServiceConnection
	static CouchDbContainer couchDb = new CouchDbContainer(Images.image("couchdb", "couchdb:3.4.3-local", "couchdb:3.4"));

	@Autowired
	StringRedisTemplate redis;

	@Value("${starintel.lease.test.couchdb.url}")
	String couchDbUrl;

	@Override
	Reason expectedExpiryLoss() {
		return Reason.BACKEND_UNREACHABLE;
	}

	@Override
	FenceOutcome expectedWriteDuringExpiry() {
		return FenceOutcome.BACKEND_UNAVAILABLE;
	}

	@Test
	void theValkeyServiceConnectionSelectsTheRedisStoreAndCouchDbComesFromItsServiceConnection() {
		assertThat(this.leases.isInMemory()).isFalse();
		assertThat(this.leases.store()).isInstanceOf(RedisLeaseStore.class);
		String info = String.valueOf(this.redis.execute((RedisCallback<Object>) (c) -> c.serverCommands().info("server")));
		assertThat(info).contains("valkey_version");
		assertThat(this.couchDbUrl).isEqualTo(couchDb.getUrlWithCredentials());
	}

}
