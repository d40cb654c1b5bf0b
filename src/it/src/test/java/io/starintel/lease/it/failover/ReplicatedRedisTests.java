package io.starintel.lease.it.failover;

import java.time.Duration;

import io.starintel.lease.it.redis.RedisServerKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture itself, without the store (this passes today): a paused link makes the replica lag (WAIT answers 0,
 * the proxy holds the stream) and catch up on resume; a delayed link delivers late; after a kill -9 of the primary
 * and a promotion the replica has exactly what it had received; the killed node comes back empty and follows the new
 * primary through a fresh proxy.
 */
class ReplicatedRedisTests {

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	@Test
	void pausedAndDelayedLinksLagAndAKillLosesWhatTheReplicaNeverReceived() {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind)) {
			int primary = redis.primaryPort();
			int replica = redis.replicaPort();
			redis.on(primary, (node) -> node.set("before", "1"));
			assertThat(redis.waitForReplicas(1, Duration.ofSeconds(5))).isEqualTo(1);

			redis.pauseLink();
			redis.on(primary, (node) -> node.set("paused", "1"));
			assertThat(redis.waitForReplicas(1, Duration.ofMillis(300))).as("WAIT while paused").isZero();
			assertThat(redis.link().heldBytes()).isPositive();
			assertThat(redis.lagBytes()).isPositive();
			redis.resumeLink();
			assertThat(redis.waitForReplicas(1, Duration.ofSeconds(5))).as("WAIT after resume").isEqualTo(1);
			assertThat(get(redis, replica, "paused")).isEqualTo("1");

			redis.delayLink(Duration.ofMillis(300));
			long started = System.nanoTime();
			redis.on(primary, (node) -> node.set("delayed", "1"));
			assertThat(get(redis, replica, "delayed")).as("not yet on the replica").isNull();
			assertThat(redis.waitForReplicas(1, Duration.ofSeconds(5))).isEqualTo(1);
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			redis.delayLink(Duration.ZERO);

			redis.pauseLink();
			redis.on(primary, (node) -> node.set("lost", "1"));
			redis.killPrimary();
			assertThat(redis.link().discardedBytes()).as("the held stream is thrown away").isPositive();
			redis.promoteReplica();
			assertThat(redis.primaryPort()).isEqualTo(replica);
			assertThat(get(redis, replica, "before")).isEqualTo("1");
			assertThat(get(redis, replica, "lost")).as("never received, so lost").isNull();

			assertThat(redis.restartDeadNode()).isEqualTo(primary);
			redis.linkThroughProxy(primary);
			assertThat(redis.replicaPort()).isEqualTo(primary);
			assertThat(get(redis, primary, "before")).as("resynchronized from the new primary")
				.isEqualTo("1");
		}
	}

	private static String get(ReplicatedRedis redis, int port, String key) {
		return redis.on(port, (node) -> node.get(key));
	}

}
