package io.starintel.lease.it.failover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.stream.Collectors;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.amqp.FenceHeaders;
import io.starintel.lease.it.failover.AssembledLeasedApp.Runs;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.LeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.amqp.core.Message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 35's Redis Cluster row and issue 36's proof on a cluster, as a user assembles it: {@link AssembledLeasedApp}
 * on a 3-primary cluster with a replica per primary ({@link ReplicatedCluster}), configured only through Boot's
 * {@code spring.data.redis.cluster.*} properties. A leased job acquires and renews its lease, writes a checkpoint, a
 * fenced CouchDB document (whose durable mark the store raises on the cluster) and a fenced RabbitMQ message that the
 * application's own {@code @RabbitListener} consumes through the consume fence; the audit events reach the
 * application's sink. Then a graceful {@code CLUSTER FAILOVER} promotes the replica of the shard that serves the
 * program while a job holds its lease: the automatic recovery ends that lease on first contact with the promoted node,
 * the job is cancelled, the former holder's write is refused, and the next run of the job is granted a higher token
 * on the promoted node. The same after a kill -9 of that primary (the cluster promotes the replica; the killed node
 * rejoins empty as its replica, since a shard acknowledges no change without one).
 */
class ClusterAssembledAppTests {

	private static ReplicatedCluster cluster;

	private static AssembledLeasedApp app;

	private static int primary;

	@BeforeAll
	static void start(TestInfo testInfo) throws Exception {
		cluster = ReplicatedCluster.start(RedisServerKind.of(testInfo));
		primary = await("a primary with an in-sync replica").atMost(Duration.ofSeconds(60))
			.ignoreExceptions()
			.until(() -> cluster.healthyPrimaries().get(0), (port) -> port > 0);
		String nodes = cluster.ports().stream().map((port) -> "127.0.0.1:" + port).collect(Collectors.joining(","));
		app = AssembledLeasedApp.start(cluster.programOn(primary), "spring.data.redis.cluster.nodes=" + nodes,
				"spring.data.redis.lettuce.cluster.refresh.period=1s",
				"spring.data.redis.lettuce.cluster.refresh.adaptive=true");
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void everyStoreAndFencePathWorksThroughBootsClusterProperties() throws Exception {
		Runs runs = app.runs();
		String target = "target-" + UUID.randomUUID().toString().substring(0, 8);
		runs.start(target);
		LeaseContext context = runs.awaitStarted(target);
		Instant firstExpiry = context.expiresAt();
		assertThat(cluster.primaryOf(context.identity().scope())).as("the program's shard").isEqualTo(primary);
		await("a renewal on the cluster").atMost(Duration.ofSeconds(20))
			.until(() -> context.expiresAt().isAfter(firstExpiry));
		assertThat(context.isLost()).isFalse();
		runs.finish(target).assertAllAccepted();
		await("the fenced message consumed").atMost(Duration.ofSeconds(10))
			.until(() -> app.consumed().stream().anyMatch((message) -> target.equals(body(message))));
		Message message = app.consumed().stream().filter((m) -> target.equals(body(m))).findFirst().orElseThrow();
		assertThat(message.getMessageProperties().getHeaders().get(FenceHeaders.TOKEN))
			.isEqualTo(context.fencingToken());
		LeaseStore store = app.bean(LeaseStore.class);
		assertThat(store
			.inspect(InspectRequest.byIdentity(context.identity(), "corr_cluster", Instant.now().plusSeconds(5)))
			.code()).as("released at the job's end").isEqualTo(ResultCode.LEASE_NOT_FOUND);
		await("acquire and release audited").atMost(Duration.ofSeconds(10))
			.until(() -> app.audited(AuditEventType.ACQUIRE, target) && app.audited(AuditEventType.RELEASE, target));
	}

	@Test
	void aGracefulFailoverOfTheProgramsShardCancelsTheHolderAndTheNextRunGetsAHigherToken() throws Exception {
		promotionUnderAHeldLease("failover", (replica) -> {
			cluster.failoverGracefully(replica, Duration.ofSeconds(60));
		});
	}

	@Test
	void aKilledPrimaryOfTheProgramsShardCancelsTheHolderAndTheNextRunGetsAHigherToken() throws Exception {
		promotionUnderAHeldLease("killed", (replica) -> {
			cluster.kill(primary);
			cluster.awaitPromotion(replica, Duration.ofSeconds(60));
			// a shard acknowledges nothing without a replica (issue 36): the killed node comes back empty as one
			cluster.restartAsReplica(primary);
		});
	}

	private void promotionUnderAHeldLease(String name, java.util.function.IntConsumer promote) throws Exception {
		Runs runs = app.runs();
		String target = name + "-" + UUID.randomUUID().toString().substring(0, 8);
		int replica = await("a live replica of " + primary).atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(200))
			.ignoreExceptions()
			.until(() -> cluster.replicaOf(primary), (port) -> port > 0);
		cluster.awaitReplicaInSync(replica, Duration.ofSeconds(60));
		runs.start(target);
		LeaseContext holder = runs.awaitStarted(target);
		assertThat(cluster.waitForReplicas(primary, 1, Duration.ofSeconds(5))).as("the replica has the lease")
			.isEqualTo(1);
		promote.accept(replica);
		app.assertPromotionEndedTheHolder(target, holder);
		primary = replica;
	}

	private static String body(Message message) {
		return new String(message.getBody(), StandardCharsets.UTF_8);
	}

}
