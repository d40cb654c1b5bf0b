package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.UUID;
import java.util.stream.Collectors;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.it.failover.AssembledLeasedApp.Runs;
import io.starintel.lease.it.redis.RedisServerKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36's proof on Sentinel, as a user assembles it: {@link AssembledLeasedApp} configured only through Boot's
 * {@code spring.data.redis.sentinel.*} properties, over a {@link ReplicatedRedis} (primary + replica) watched by one
 * {@link LocalSentinel}. While a job holds its lease (acknowledged by the replica), Sentinel promotes the replica
 * ({@code SENTINEL FAILOVER}, the former primary demoted and its clients disconnected; or a kill -9 of the primary, the
 * killed node restarted empty as the new primary's replica): the store notices the promoted node, the automatic
 * recovery ends the pre-failover lease, the job is cancelled, the former holder's write is refused, and the next run
 * is granted a higher token on the promoted node with every fenced write accepted.
 */
class SentinelAssembledAppTests {

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	@Test
	void aSentinelFailoverCancelsTheHolderAndTheNextRunGetsAHigherToken() throws Exception {
		promotionUnderAHeldLease((redis, sentinel) -> {
			int former = redis.primaryPort();
			sentinel.failover();
			sentinel.awaitPromotion(redis, former, Duration.ofSeconds(30));
			redis.demoteFormerPrimary(former);
		});
	}

	@Test
	void aKilledPrimaryCancelsTheHolderAndTheNextRunGetsAHigherToken() throws Exception {
		promotionUnderAHeldLease((redis, sentinel) -> {
			int former = redis.primaryPort();
			redis.killPrimary();
			sentinel.awaitPromotion(redis, former, Duration.ofSeconds(30));
			// on Sentinel a change waits for at least one replica: the killed node comes back empty as one
			redis.restartDeadNode();
			redis.linkThroughProxy(former);
		});
	}

	private void promotionUnderAHeldLease(Promotion promotion) throws Exception {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 1);
				AssembledLeasedApp app = AssembledLeasedApp.start(FailoverRequests.newProgram(),
						"spring.data.redis.sentinel.master=" + LocalSentinel.MASTER,
						"spring.data.redis.sentinel.nodes=" + sentinel.ports()
							.stream()
							.map((port) -> "127.0.0.1:" + port)
							.collect(Collectors.joining(",")))) {
			Runs runs = app.runs();
			String target = "sentinel-" + UUID.randomUUID().toString().substring(0, 8);
			runs.start(target);
			LeaseContext holder = runs.awaitStarted(target);
			assertThat(redis.waitForReplicas(1, Duration.ofSeconds(5))).as("the replica has the lease").isEqualTo(1);
			promotion.promote(redis, sentinel);
			app.assertPromotionEndedTheHolder(target, holder);
		}
	}

	@FunctionalInterface
	private interface Promotion {

		void promote(ReplicatedRedis redis, LocalSentinel sentinel);

	}

}
