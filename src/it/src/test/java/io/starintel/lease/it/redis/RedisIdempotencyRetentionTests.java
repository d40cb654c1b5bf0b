package io.starintel.lease.it.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.internal.RedisKeys;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long idempotency results live (contract: they outlive the maximum lease lifetime and the client retry window):
 * an acquire's result, which also resolves its lease id, for the policy's whole retention (maximum lifetime cap +
 * retry window, 25 h by default); the result of a renewal or release of a lease only until that lease's own maximum
 * lifetime has passed plus the retry window, which for a 5-minute lease is about 1 h 5 min instead of 25 h. With
 * 100,000 leases renewed every 10 s that is the difference between keeping 2.5 h and 25 h of renewal results.
 */
class RedisIdempotencyRetentionTests extends SharedRedisTests {

	@Test
	void renewalAndReleaseResultsLiveForTheLeasesLifetimePlusTheRetryWindowAndTheAcquireForTheRetention() {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		RedisLeaseStore store = RedisServers.store(factory);
		LockIdentity identity = LockIdentity.of("tenant-retention", program, "starintel-target", "t-1", "usernamegen",
				"default", null);
		Duration lifetime = Duration.ofMinutes(5);
		LeaseResult acquired = store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(5), new LeaseOwner("prn_r", "client_r", "key_r", "instance_r"), 30_000,
				lifetime.toMillis(), "execution_1", "job_1", "trace_1", LeaseMetadata.empty()));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		LeaseRecord lease = acquired.lease();
		List<Long> afterAcquire = ttls(program);
		assertThat(afterAcquire).as("the acquire's result").hasSize(1);
		assertThat(store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_RELEASED);

		Duration retention = RedisServers.POLICY.idempotencyRetention();
		Duration leaseBound = lifetime.plus(RedisServers.POLICY.retryWindow());
		List<Long> all = ttls(program);
		assertThat(all).hasSize(3);
		// the acquire: the whole retention (minus the test's own seconds)
		assertThat(all).filteredOn((ttl) -> ttl > leaseBound.toMillis())
			.singleElement()
			.satisfies((ttl) -> assertThat(ttl).isBetween(retention.minusMinutes(1).toMillis(), retention.toMillis()));
		// the renewal and the release: the lease's lifetime plus the retry window, at most
		assertThat(all).filteredOn((ttl) -> ttl <= leaseBound.toMillis())
			.hasSize(2)
			.allSatisfy((ttl) -> assertThat(ttl).isGreaterThan(leaseBound.minusMinutes(1).toMillis()));
	}

	/** The remaining time to live (ms) of every idempotency result of the program. */
	private static List<Long> ttls(String program) {
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		String base = new RedisKeys(ProgramScope.of("tenant-retention", program)).base();
		List<Long> ttls = new ArrayList<>();
		try (Cursor<String> keys = redis.scan(ScanOptions.scanOptions().match(base + "idem:*").count(1000).build())) {
			keys.forEachRemaining((key) -> ttls.add(redis.getExpire(key, java.util.concurrent.TimeUnit.MILLISECONDS)));
		}
		return ttls;
	}

}
