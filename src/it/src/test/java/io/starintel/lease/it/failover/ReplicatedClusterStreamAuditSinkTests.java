package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.Range;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The durable audit sink ({@link RedisStreamAuditSink}) on a Redis (or Valkey) Cluster with a replica per primary
 * ({@link ReplicatedCluster}), through Spring Data Redis's cluster factory and the store's default replica rule, as
 * the admin auto-configuration builds it on {@code spring.data.redis.cluster.*}: a batch with entries of programs on
 * every primary is confirmed once each primary's replica has its part; a batch one of whose primaries' replica is
 * frozen ({@code WAIT} answers 0) fails instead of being confirmed, and while it waits the template's shared cluster
 * connection to that primary still answers; a primary whose replica is cut off (it reports
 * none) is refused at once with nothing sent; once the replica is back, writes are confirmed again; and after a
 * failover, with a client that does not refresh its topology by itself (Spring Boot's default options), the sink's
 * writes reach the promoted primary.
 */
class ReplicatedClusterStreamAuditSinkTests {

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	@Test
	void aBatchIsConfirmedOnlyOnceTheReplicaOfEachPrimaryItWritesToHasItsPart() {
		try (ReplicatedCluster cluster = ReplicatedCluster.start(this.kind);
				FailoverClients.Client client = cluster.client();
				RedisStreamAuditSink sink = sink(client)) {
			List<Integer> primaries = cluster.healthyPrimaries();
			List<LockIdentity> identities = new ArrayList<>();
			for (int primary : primaries) {
				identities.add(identityOn(cluster, primary));
			}
			List<String> confirmed = record(sink, identities, 0);
			for (int i = 0; i < primaries.size(); i++) {
				// confirmed: the replica has its primary's part
				assertThat(requestIds(cluster, cluster.replicaOf(primaries.get(i)), identities.get(i)))
					.containsExactlyElementsOf(confirmed.subList(i * 5, i * 5 + 5));
			}

			int lagging = primaries.get(0);
			int replica = cluster.replicaOf(lagging);
			StringRedisTemplate template = new StringRedisTemplate(client.factory());
			String sameSlot = "starintel-sink-probe:{" + identities.get(0).scope().hashTag() + "}";
			template.opsForValue().get(sameSlot); // the template's shared connection is open before the write
			cluster.freeze(replica);
			try {
				CompletableFuture<List<String>> write = CompletableFuture
					.supplyAsync(() -> record(sink, List.of(identities.get(0), identities.get(1)), 1));
				await("a WAIT blocked on the primary").atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(20))
					.failFast("the write completed without waiting for the replica", write::isDone)
					.until(() -> cluster.on(lagging, (node) -> node.info("clients")).contains("blocked_clients:1"));
				// the wait runs on the sink's own link to that primary: the application's calls there are answered
				long started = System.nanoTime();
				template.opsForValue().get(sameSlot);
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
				// the client's command timeout is 10 s (FailoverClients); the waits are bounded by it
				assertThat(write).failsWithin(Duration.ofSeconds(15))
					.withThrowableThat()
					.havingRootCause()
					.isInstanceOfSatisfying(AuditWriteException.class, (failure) -> {
						// the other primary's part (events 5 to 9) is confirmed: the audit pipeline does not send it again
						BitSet otherPart = new BitSet();
						otherPart.set(5, 10);
						assertThat(failure.confirmed()).isEqualTo(otherPart);
					});
			}
			finally {
				cluster.thaw(replica);
			}
			cluster.awaitReplicaInSync(replica, Duration.ofSeconds(30));
			List<String> next = record(sink, identities, 2);
			assertThat(requestIds(cluster, replica, identities.get(0))).containsSubsequence(next.subList(0, 5));
		}
	}

	@Test
	void aPrimaryThatReportsNoReplicaIsRefusedAtOnceWithNothingSent() {
		try (ReplicatedCluster cluster = ReplicatedCluster.start(this.kind);
				FailoverClients.Client client = cluster.client()) {
			int primary = cluster.healthyPrimaries().get(0);
			int replica = cluster.replicaOf(primary);
			LockIdentity identity = identityOn(cluster, primary);
			cluster.cutReplicaLink(replica);
			try (RedisStreamAuditSink sink = sink(client)) {
				long started = System.nanoTime();
				assertThatExceptionOfType(AuditWriteException.class)
					.isThrownBy(() -> record(sink, List.of(identity), 0))
					.withMessage("audit stream write refused: fewer replicas online than required");
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
				assertThat(requestIds(cluster, primary, identity)).isEmpty();

				cluster.restoreReplicaLink(replica);
				cluster.awaitReplicaInSync(replica, Duration.ofSeconds(30));
				// the count is asked again at most once a second: confirmed once the primary reports its replica
				List<String> confirmed = await("confirmed with the replica back")
					.atMost(Duration.ofSeconds(20))
					.pollInterval(Duration.ofMillis(200))
					.ignoreExceptionsInstanceOf(AuditWriteException.class)
					.until(() -> record(sink, List.of(identity), 1), (ids) -> true);
				assertThat(requestIds(cluster, replica, identity)).containsSubsequence(confirmed);
			}
			finally {
				cluster.restoreReplicaLink(replica);
			}
		}
	}

	@Test
	void afterAFailoverTheSinkWritesToThePromotedPrimaryWithoutTopologyRefreshOptions() {
		try (ReplicatedCluster cluster = ReplicatedCluster.start(this.kind);
				FailoverClients.Client client = cluster.clientWithoutTopologyRefresh();
				RedisStreamAuditSink sink = sink(client)) {
			int primary = cluster.healthyPrimaries().get(0);
			int replica = cluster.replicaOf(primary);
			LockIdentity identity = identityOn(cluster, primary);
			List<String> confirmed = new ArrayList<>(record(sink, List.of(identity), 0));
			cluster.failoverGracefully(replica, Duration.ofSeconds(60)); // the replica has every confirmed entry
			cluster.awaitReplicaInSync(primary, Duration.ofSeconds(30));
			// the client's topology still names the former primary: the first attempts fail (refused: it reports no
			// replica), the sink has the topology read again, and a later attempt reaches the promoted primary
			confirmed.addAll(await("confirmed on the promoted primary").atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(200))
				.ignoreExceptionsInstanceOf(AuditWriteException.class)
				.until(() -> record(sink, List.of(identity), 1), (ids) -> true));
			assertThat(requestIds(cluster, replica, identity)).containsSubsequence(confirmed);
		}
	}

	/** As the admin auto-configuration builds it: the store's default replica rule. */
	private static RedisStreamAuditSink sink(FailoverClients.Client client) {
		return new RedisStreamAuditSink(new StringRedisTemplate(client.factory()), 100_000,
				RedisStreamAuditSink.ADMIN_STREAM_LENGTH, ReplicaAcknowledgement.allReplicas()::required);
	}

	private static LockIdentity identityOn(ReplicatedCluster cluster, int primary) {
		return LockIdentity.of(FailoverRequests.TENANT, cluster.programOn(primary), "ns", "Target-1", "actor",
				"default", null);
	}

	/** One batch of 5 events per identity, in order; returns their request ids. */
	private static List<String> record(RedisStreamAuditSink sink, List<LockIdentity> identities, int batch) {
		return StreamAuditEvents.recordBatch(sink, identities, batch, 5);
	}

	private static List<String> requestIds(ReplicatedCluster cluster, int port, LockIdentity identity) {
		String stream = RedisStreamAuditSink.routineStreamKey(identity.scope());
		return StreamAuditEvents.requestIds(cluster.on(port, (node) -> {
			node.readOnly();
			return node.xrange(stream, Range.create("-", "+"));
		}));
	}

}
