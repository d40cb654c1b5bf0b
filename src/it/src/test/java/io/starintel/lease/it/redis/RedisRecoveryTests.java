package io.starintel.lease.it.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.starintel.lease.audit.internal.AdminDecision;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract's recovery operation: after a restore, every active lease of a program is invalidated (revoked,
 * audited) so that holders must acquire again, and new tokens exceed the old ones.
 */
class RedisRecoveryTests extends SharedRedisTests {

	@Test
	void recoveryRevokesEveryActiveLeaseOfTheProgramWithAuditAndHigherTokensAfterwards() {
		RedisLeaseStore store = RedisServers.store(factory);
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		List<LeaseRecord> leases = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			LockIdentity identity = LockIdentity.of("tenant-rec", program, "starintel-target", "t" + i, "usernamegen",
					"default", null);
			leases.add(acquire(store, identity).lease());
		}
		// as the admin endpoint calls it: one decision of a request (its correlation id), bound around the call
		AdminDecision decision = AdminDecision.begin("corr-restore-1", Instant.now());
		long revoked = decision.run(() -> store.recoverProgram(leases.get(0).identity().scope(), "prn_admin",
				"key_admin", "restore-2026-12-01", Instant.now().plusSeconds(10)));
		assertThat(revoked).isEqualTo(3);
		for (LeaseRecord lease : leases) {
			assertThat(store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
					Instant.now().plusSeconds(5))).code()).isEqualTo(ResultCode.LEASE_LOST);
			assertThat(store.authorizeCommit(new CommitRequest(lease.handle(), "c", Instant.now().plusSeconds(5))).code())
				.isEqualTo(ResultCode.LEASE_LOST);
			LeaseResult again = acquire(store, lease.identity());
			assertThat(again.lease().fencingToken()).isGreaterThan(lease.fencingToken());
		}
		List<MapRecord<String, Object, Object>> events = new StringRedisTemplate(factory).opsForStream()
			.range(RedisKeys.of(leases.get(0).identity()).audit(), org.springframework.data.domain.Range.unbounded());
		assertThat(events).hasSize(3);
		assertThat(events).allSatisfy(event -> {
			assertThat(event.getValue()).containsEntry("event_type", "target_lease_revoke")
				.containsEntry("reason", "restore-2026-12-01")
				.containsEntry("principal_id", "prn_admin")
				// each entry names the request and the decision (the request event's decision id) and its latency
				.containsEntry("correlation_id", "corr-restore-1")
				.containsEntry("decision_id", decision.decisionId());
			assertThat(event.getValue().get("latency_ms")).as("latency_ms").asString().matches("\\d+");
			assertThat(event.getValue().values().toString()).doesNotContain(LockIdentity.KEY_PREFIX);
		});
		assertThat(store.recoverProgram(leases.get(0).identity().scope(), "prn_admin", "key_admin", "again",
				Instant.now().plusSeconds(10))).isEqualTo(3);
	}

	private static LeaseResult acquire(RedisLeaseStore store, LockIdentity identity) {
		LeaseResult result = store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(10), new LeaseOwner("prn_a", "client_1", "key_1", "instance_a"), 60_000,
				300_000, "execution_1", "job_1", "trace_1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result;
	}

}
