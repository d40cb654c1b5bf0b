package io.starintel.lease.it.failover;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.FailoverRecovery;
import io.starintel.lease.store.redis.RecoveryReport;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.test.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The epoch stamp (prelude.lua) on a promoted replica and on a restarted server: a lease written on another node is
 * never served. With manual recovery every call on it refuses with {@code recovery_required} until the operator's
 * {@code recoverPromotedPrograms} revoked it (audited under the operator); with automatic recovery the first call
 * that meets it revokes it (audited under the service principal) and goes on. Either way the former holder is refused
 * and the next holder gets a higher token. Each test fails without the epoch check (the lease would be served).
 */
class FailoverRecoveryTests {

	private static final Duration TTL = Duration.ofSeconds(60);

	private static final Duration DEADLINE = Duration.ofSeconds(5);

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	private static RedisLeaseStore store(FailoverClients.Client client, FailoverRecovery recovery) {
		return RedisLeaseStore.builder(client.factory())
			.policy(FailoverStores.POLICY)
			.failoverRecovery(recovery)
			.build();
	}

	private static LeaseRecord acquired(RedisLeaseStore store, LockIdentity identity, String owner) {
		LeaseResult result = store.acquire(FailoverRequests.acquire(identity, owner, TTL, DEADLINE));
		assertThat(result.code()).as("acquire %s by %s (%s)", identity.targetId(), owner, result.reason())
			.isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	private static void assertRecoveryRequired(LeaseResult result, String what) {
		assertThat(result.code()).as(what).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).as(what).isEqualTo(Reason.RECOVERY_REQUIRED);
	}

	private static List<MapRecord<String, Object, Object>> audit(FailoverClients.Client client, LockIdentity identity) {
		return new StringRedisTemplate(client.factory()).opsForStream()
			.range(RedisKeys.of(identity).audit(), Range.unbounded());
	}

	@Test
	void manualRecoveryRefusesPreFailoverLeasesUntilTheOperatorRecovers() {
		String program = FailoverRequests.newProgram();
		LockIdentity a = FailoverRequests.identity(program, "a");
		LockIdentity c = FailoverRequests.identity(program, "c");
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind)) {
			LeaseRecord leaseA;
			LeaseRecord leaseC;
			try (FailoverClients.Client before = FailoverClients.standalone(redis.primaryPort())) {
				RedisLeaseStore primary = store(before, FailoverRecovery.manual());
				leaseA = acquired(primary, a, "alice");
				leaseC = acquired(primary, c, "carol");
				assertThat(redis.waitForReplicas(1, DEADLINE)).as("the replica has both leases").isEqualTo(1);
				primary.close();
			}
			redis.killPrimary();
			redis.promoteReplica();
			try (FailoverClients.Client after = FailoverClients.standalone(redis.primaryPort())) {
				RedisLeaseStore promoted = store(after, FailoverRecovery.manual());
				assertRecoveryRequired(promoted.renew(FailoverRequests.renew(leaseA, DEADLINE)), "A's renewal");
				assertRecoveryRequired(promoted.authorizeCommit(FailoverRequests.commit(leaseA, DEADLINE)),
						"A's commit authorization");
				assertRecoveryRequired(promoted.acquire(FailoverRequests.acquire(a, "bob", TTL, DEADLINE)),
						"bob's acquire of A's target");
				assertRecoveryRequired(promoted.inspect(FailoverRequests.inspect(c, DEADLINE)), "inspect of C");
				LeasePage page = promoted.list(new ListRequest(new ListFilter.ByProgram(a.scope()), null, 10, "c",
						FailoverRequests.in(DEADLINE)));
				assertThat(page.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
				assertThat(page.reason()).isEqualTo(Reason.RECOVERY_REQUIRED);

				RecoveryReport report = promoted.recoverPromotedPrograms(null, "prn_operator", "key_operator",
						"failover drill", Instant.now().plusSeconds(10));
				assertThat(report.revoked()).as(report.toString()).isEqualTo(2);
				assertThat(report.complete()).as(report.toString()).isTrue();
				assertThat(report.nodes()).isEqualTo(1);

				assertThat(promoted.renew(FailoverRequests.renew(leaseA, DEADLINE)).code()).isEqualTo(ResultCode.LEASE_LOST);
				assertThat(promoted.authorizeCommit(FailoverRequests.commit(leaseC, DEADLINE)).code())
					.isEqualTo(ResultCode.LEASE_LOST);
				LeaseRecord next = acquired(promoted, a, "bob");
				assertThat(next.fencingToken()).isGreaterThan(leaseA.fencingToken());
				List<MapRecord<String, Object, Object>> events = audit(after, a);
				assertThat(events).extracting((record) -> record.getValue().get("lease_id"))
					.contains(leaseA.leaseId(), leaseC.leaseId());
				assertThat(events).allSatisfy((record) -> {
					Map<Object, Object> event = record.getValue();
					assertThat(event.get("event_type")).isEqualTo("target_lease_revoke");
					assertThat(event.get("principal_id")).isEqualTo("prn_operator");
					assertThat(event.get("reason")).isEqualTo("failover drill");
					// a call outside an HTTP request: no correlation id; one decision of the call, its latency
					assertThat(event).doesNotContainKey("correlation_id");
					assertThat(event.get("decision_id")).as("decision_id").asString().matches("dec_[0-9A-Z]{26}");
					assertThat(event.get("latency_ms")).as("latency_ms").asString().matches("\\d+");
				});
				assertThat(events).extracting((record) -> record.getValue().get("decision_id"))
					.as("one recovery, one decision").containsOnly(events.get(0).getValue().get("decision_id"));
				// a second run finds nothing left to revoke
				assertThat(promoted.recoverPromotedPrograms(null, "prn_operator", "key_operator", "again",
						Instant.now().plusSeconds(10)).revoked()).isZero();
				promoted.close();
			}
		}
	}

	@Test
	void automaticRecoveryRevokesAPreFailoverLeaseOnFirstContactAndGoesOn() {
		String program = FailoverRequests.newProgram();
		LockIdentity a = FailoverRequests.identity(program, "a");
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind)) {
			LeaseRecord leaseA;
			try (FailoverClients.Client before = FailoverClients.standalone(redis.primaryPort())) {
				RedisLeaseStore primary = store(before, FailoverRecovery.automatic("prn_service"));
				leaseA = acquired(primary, a, "alice");
				assertThat(redis.waitForReplicas(1, DEADLINE)).isEqualTo(1);
				primary.close();
			}
			redis.killPrimary();
			redis.promoteReplica();
			try (FailoverClients.Client after = FailoverClients.standalone(redis.primaryPort())) {
				RedisLeaseStore promoted = store(after, FailoverRecovery.automatic("prn_service"));
				// the holder's next renewal meets its lease written on the old primary: revoked, then refused
				assertThat(promoted.renew(FailoverRequests.renew(leaseA, DEADLINE)).code())
					.isEqualTo(ResultCode.LEASE_LOST);
				assertThat(promoted.authorizeCommit(FailoverRequests.commit(leaseA, DEADLINE)).code())
					.isEqualTo(ResultCode.LEASE_LOST);
				LeaseRecord next = acquired(promoted, a, "bob");
				assertThat(next.fencingToken()).isGreaterThan(leaseA.fencingToken());
				assertThat(audit(after, a)).singleElement().satisfies((record) -> {
					Map<Object, Object> event = record.getValue();
					assertThat(event.get("event_type")).isEqualTo("target_lease_revoke");
					assertThat(event.get("lease_id")).isEqualTo(leaseA.leaseId());
					assertThat(event.get("principal_id")).isEqualTo("prn_service");
					assertThat(event.get("credential_id")).isEqualTo("automatic-recovery");
					// no request asked for it: a decision id of its own (the lease is revoked once), no correlation id
					// and no latency (docs/admin.md, Audit)
					assertThat(event.get("decision_id")).isEqualTo("dec_recovery_" + leaseA.leaseId());
					assertThat(event).doesNotContainKeys("correlation_id", "latency_ms");
				});
				promoted.close();
			}
		}
	}

	/**
	 * A switchover and back: the primary, demoted to a replica of the node promoted in its place, keeps its Lua state
	 * through the partial resynchronization; promoted again (the new primary lost, say), it has a new replication id.
	 * A lease it granted in its first term (ended on the other node since, perhaps, and not replicated back) is another
	 * node's now: revoked on first contact, never renewed or authorized under its old token (found by an outside probe
	 * on a Redis Cluster: a demoted and re-promoted primary took its own first-term stamps for current).
	 */
	@Test
	void aPrimaryDemotedAndPromotedAgainRevokesTheLeasesOfItsFirstTerm() {
		String program = FailoverRequests.newProgram();
		LockIdentity a = FailoverRequests.identity(program, "a");
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind)) {
			int first = redis.primaryPort();
			try (FailoverClients.Client client = FailoverClients.standalone(first)) {
				RedisLeaseStore store = store(client, FailoverRecovery.automatic("prn_service"));
				LeaseRecord leaseA = acquired(store, a, "alice");
				assertThat(store.renew(FailoverRequests.renew(leaseA, DEADLINE)).code())
					.isEqualTo(ResultCode.LEASE_RENEWED);
				assertThat(redis.waitForReplicas(1, DEADLINE)).isEqualTo(1);
				// the fixture's primary pings its replica every second; a ping it sends after the promotion (before
				// it saw its replica go) advances its offset past the promoted node's, and the demotion is then a
				// full resynchronization, not the partial one this case is about (seen once)
				redis.on(first, (node) -> node.configSet("repl-ping-replica-period", "3600"));
				redis.promoteReplica();
				redis.demoteFormerPrimary(first);
				assertThat(redis.process(first).log()).as("the demoted primary kept its Lua state")
					.contains("Successful partial resynchronization");
				int second = redis.primaryPort();
				redis.promoteReplica();
				assertThat(redis.primaryPort()).isEqualTo(first);
				redis.demoteFormerPrimary(second);
				assertThat(store.renew(FailoverRequests.renew(leaseA, DEADLINE)).code())
					.as("a lease of the node's first term as primary")
					.isEqualTo(ResultCode.LEASE_LOST);
				assertThat(store.authorizeCommit(FailoverRequests.commit(leaseA, DEADLINE)).code())
					.isEqualTo(ResultCode.LEASE_LOST);
				LeaseRecord next = acquired(store, a, "bob");
				assertThat(next.fencingToken()).isGreaterThan(leaseA.fencingToken());
				assertThat(audit(client, a)).singleElement()
					.satisfies((record) -> assertThat(record.getValue().get("lease_id")).isEqualTo(leaseA.leaseId()));
				store.close();
			}
		}
	}

	@Test
	void aRestartedServerRevokesTheLeasesThatWereActiveEvenWithEveryWriteOnDisk() throws Exception {
		String program = FailoverRequests.newProgram();
		LockIdentity a = FailoverRequests.identity(program, "a");
		Path directory = Files.createTempDirectory("restart");
		Path binary = this.kind.requireServerBinary();
		int port = RedisServerProcess.freePort();
		String[] durable = { "--appendonly", "yes", "--appendfsync", "always", "--save", "" };
		LeaseRecord leaseA;
		try (RedisServerProcess server = RedisServerProcess.start(binary, port, directory, durable);
				FailoverClients.Client client = FailoverClients.standalone(port)) {
			RedisLeaseStore store = store(client, FailoverRecovery.automatic("prn_service"));
			leaseA = acquired(store, a, "alice");
			assertThat(store.renew(FailoverRequests.renew(leaseA, DEADLINE)).code()).isEqualTo(ResultCode.LEASE_RENEWED);
			store.close();
		}
		try (RedisServerProcess restarted = RedisServerProcess.start(binary, port, directory, durable);
				FailoverClients.Client client = FailoverClients.standalone(port)) {
			RedisLeaseStore store = store(client, FailoverRecovery.automatic("prn_service"));
			assertThat(store.renew(FailoverRequests.renew(leaseA, DEADLINE)).code())
				.as("the lease survived on disk, but the server that granted it is gone")
				.isEqualTo(ResultCode.LEASE_LOST);
			LeaseRecord next = acquired(store, a, "bob");
			assertThat(next.fencingToken()).isGreaterThan(leaseA.fencingToken());
			store.close();
		}
	}

}
