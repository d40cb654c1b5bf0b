package io.starintel.lease.it.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens survive data loss: against a Redis (a Valkey in {@link ValkeyDataLossTests}) started by the test
 * on its own port (a process, or a container: {@link RedisProcess}), issue tokens, restart the server without
 * persistence (every key, the counter included, is gone), acquire again: the new token is greater than every token
 * issued before, because tokens are floored at backend milliseconds x 1024.
 */
class RedisDataLossTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-loss", "program-loss", "starintel-target",
			"target-1", "usernamegen", "default", null);

	@Test
	void tokenAfterLosingEveryKeyIsAboveEveryTokenIssuedBefore() throws Exception {
		try (RedisProcess server = RedisProcess.start(RedisServerKind.of(getClass()))) {
			List<Long> before = new ArrayList<>();
			LettuceConnectionFactory factory = RedisServers.factory(server.host(), server.port());
			try {
				RedisLeaseStore store = RedisServers.store(factory);
				for (int i = 0; i < 50; i++) {
					LeaseRecord lease = acquire(store);
					before.add(lease.fencingToken());
					if (i < 49) {
						release(store, lease);
					}
				}
			}
			finally {
				factory.destroy();
			}
			assertThat(before).isSorted().doesNotHaveDuplicates();

			server.restartEmpty();

			LettuceConnectionFactory fresh = RedisServers.factory(server.host(), server.port());
			try {
				RedisLeaseStore store = RedisServers.store(fresh);
				assertThat(store.inspect(InspectRequest.byIdentity(IDENTITY, "c", Instant.now().plusSeconds(5))).code())
					.as("the restart lost the active lease too").isEqualTo(ResultCode.LEASE_NOT_FOUND);
				LeaseRecord after = acquire(store);
				assertThat(after.fencingToken()).isGreaterThan(before.get(before.size() - 1));
			}
			finally {
				fresh.destroy();
			}
		}
	}

	private static LeaseRecord acquire(RedisLeaseStore store) {
		LeaseResult result = store.acquire(new AcquireRequest(IDENTITY, Identifiers.generate("request"),
				Instant.now().plusSeconds(10), new LeaseOwner("prn_a", "client_1", "key_1", "instance_a"), 60_000,
				300_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	private static void release(RedisLeaseStore store, LeaseRecord lease) {
		assertThat(store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
				Instant.now().plusSeconds(10))).code()).isEqualTo(ResultCode.LEASE_RELEASED);
	}

}
