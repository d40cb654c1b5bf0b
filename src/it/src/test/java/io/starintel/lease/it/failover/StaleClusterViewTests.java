package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import io.lettuce.core.Range;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A client whose view of the cluster shows no replica, on a cluster that has them: Spring Boot's default client
 * options (no periodic or adaptive refresh) load the topology once, and a view loaded before the replicas registered
 * (a node that had not heard yet; replicas attached after the application started) shows every node as a primary
 * until a redirection makes the client read it again. With a primary's replica cut off (the primary reports no
 * connected replica), the store and the durable audit sink must still require one acknowledgement, as they do with a
 * current view: the primary's own {@code CLUSTER NODES} lists the replicas. Otherwise a grant or an audit entry only
 * that primary holds is acknowledged, and the promotion of the cut-off replica loses it.
 *
 * <p>The stale view is the one a client was once seen to load from a node that had not heard of the replicas yet
 * (every node a primary, the replicas without slots), set in the client's {@link Partitions}.
 */
class StaleClusterViewTests {

	private static ReplicatedCluster cluster;

	@BeforeAll
	static void startCluster(TestInfo testInfo) {
		cluster = ReplicatedCluster.start(RedisServerKind.of(testInfo));
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
			cluster = null;
		}
	}

	@Test
	void theStoreRefusesAChangeOnAPrimaryWhoseReplicaIsCutOff() {
		int primary = cluster.healthyPrimaries().get(0);
		int replica = cluster.replicaOf(primary);
		String program = cluster.programOn(primary);
		try (FailoverClients.Client client = cluster.clientWithoutTopologyRefresh();
				RedisLeaseStore store = FailoverStores.store(client.factory())) {
			forgetReplicas(client);
			cluster.cutReplicaLink(replica);
			try {
				// never a grant: the node's first change goes out before its replica count is known, and one sent with a
				// count that turns out stale waits in vain (lease_outcome_unknown); once the count is known, refused
				// without being sent
				List<ResultCode> answers = new ArrayList<>();
				long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
				LeaseResult last;
				do {
					last = store.acquire(FailoverRequests.acquire(
							FailoverRequests.identity(program, "target-" + answers.size()), "owner-a",
							Duration.ofSeconds(30), Duration.ofSeconds(2)));
					answers.add(last.code());
				}
				while (last.code() == ResultCode.LEASE_OUTCOME_UNKNOWN && System.nanoTime() - until < 0);
				assertThat(answers).as("the answers in order").isSubsetOf(ResultCode.LEASE_BACKEND_UNAVAILABLE,
						ResultCode.LEASE_OUTCOME_UNKNOWN);
				LeaseResult refused = last;
				assertThat(refused.code()).as(answers.toString()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
				assertThat(refused.reason()).isEqualTo(Reason.REPLICAS_UNAVAILABLE);
			}
			finally {
				cluster.restoreReplicaLink(replica);
			}
			cluster.awaitReplicaInSync(replica, Duration.ofSeconds(30));
			// the replica back: granted (the count is asked again at most once a second)
			LeaseResult granted = await("granted with the replica back").atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> store.acquire(FailoverRequests.acquire(FailoverRequests.identity(program, "target-back"),
						"owner-a", Duration.ofSeconds(30), Duration.ofSeconds(5))),
						(result) -> result.code() != ResultCode.LEASE_BACKEND_UNAVAILABLE);
			assertThat(granted.code()).as(granted.toString()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		}
	}

	@Test
	void theDurableAuditSinkRefusesAWriteToAPrimaryWhoseReplicaIsCutOff() {
		int primary = cluster.healthyPrimaries().get(1);
		int replica = cluster.replicaOf(primary);
		LockIdentity identity = LockIdentity.of(FailoverRequests.TENANT, cluster.programOn(primary), "ns", "Target-1",
				"actor", "default", null);
		try (FailoverClients.Client client = cluster.clientWithoutTopologyRefresh();
				RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(client.factory()), 100_000,
						RedisStreamAuditSink.ADMIN_STREAM_LENGTH, ReplicaAcknowledgement.allReplicas()::required)) {
			forgetReplicas(client);
			cluster.cutReplicaLink(replica);
			try {
				assertThatExceptionOfType(AuditWriteException.class)
					.isThrownBy(() -> StreamAuditEvents.recordBatch(sink, List.of(identity), 0, 5))
					.withMessage("audit stream write refused: fewer replicas online than required");
				assertThat(StreamAuditEvents.requestIds(cluster.on(primary,
						(node) -> node.xrange(RedisStreamAuditSink.routineStreamKey(identity.scope()),
								Range.create("-", "+")))))
					.isEmpty();
			}
			finally {
				cluster.restoreReplicaLink(replica);
			}
			cluster.awaitReplicaInSync(replica, Duration.ofSeconds(30));
			List<String> confirmed = await("confirmed with the replica back").atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(200))
				.ignoreExceptionsInstanceOf(AuditWriteException.class)
				.until(() -> StreamAuditEvents.recordBatch(sink, List.of(identity), 1, 5), (ids) -> true);
			assertThat(StreamAuditEvents.requestIds(cluster.on(replica, (node) -> {
				node.readOnly();
				return node.xrange(RedisStreamAuditSink.routineStreamKey(identity.scope()),
						Range.create("-", "+"));
			}))).containsSubsequence(confirmed);
		}
	}

	/** Sets the client's view to one that shows every node as a primary, the replicas without slots. */
	private static void forgetReplicas(FailoverClients.Client client) {
		Partitions partitions = ((RedisClusterClient) client.factory().getNativeClient()).getPartitions();
		List<RedisClusterNode> stale = new ArrayList<>();
		for (RedisClusterNode node : partitions) {
			RedisClusterNode copy = node.clone();
			if (copy.getSlaveOf() != null || copy.is(RedisClusterNode.NodeFlag.REPLICA)) {
				copy.setSlaveOf(null);
				copy.setFlags(EnumSet.of(RedisClusterNode.NodeFlag.UPSTREAM));
			}
			stale.add(copy);
		}
		partitions.reload(stale);
		assertThat(partitions).as("the client's view").noneMatch((node) -> node.getSlaveOf() != null
				|| node.is(RedisClusterNode.NodeFlag.REPLICA));
	}

}
