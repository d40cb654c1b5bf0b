package io.starintel.lease.it.fence;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.checkpoint.CheckpointReadStatus;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.test.RedisServerProcess;
import io.starintel.lease.context.LeaseContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

/**
 * The held-out checkpoint faults, written against the store's oldest API ({@code write(context, state, progress)}
 * and {@code read(identity)}) so they also run on earlier versions: a reply lost and the connection cut (Lettuce
 * reconnects and may re-send) never yields {@code deadline_exceeded} or {@code lease_lost} for a checkpoint the
 * first run stored; a write waits no longer than its deadline; a read with Redis unreachable throws nothing.
 */
class CheckpointResendTests {

	static FenceFixture fixture;

	@BeforeAll
	static void setUp() {
		fixture = new FenceFixture();
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@Test
	void lostReplyAndCutConnectionNeverMisreportAStoredCheckpoint() throws Exception {
		URI uri = RedisServers.uri();
		LeaseContext a = fixture.acquire(fixture.identity("cp-resend"), "alice", 30_000);
		String key = RedisCheckpointStore.key(a.identity());
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				StringRedisTemplate template = new StringRedisTemplate(proxied);
				template.afterPropertiesSet();
				RedisCheckpointStore store = new RedisCheckpointStore(template, Duration.ofMillis(800),
						Clock.systemUTC());
				assertThat(template.hasKey("warm-up-" + key)).isFalse();
				// the store's own connection, opened while replies still flow (a new one could not finish its
				// handshake through the silent proxy: that write would be backend_unavailable, never sent)
				assertThat(store.read(a.identity()).status()).isEqualTo(CheckpointReadStatus.NOT_FOUND);
				proxy.dropReplies(true);
				long startedAtBackend = fixture.serverMillis();
				long started = System.nanoTime();
				CompletableFuture<FencedWriteResult> write = CompletableFuture
					.supplyAsync(() -> store.write(a, CheckpointState.COMPLETED, "done"));
				// the first run stores the checkpoint; its reply is dropped
				await().atMost(Duration.ofSeconds(10))
					.until(() -> "done".equals(fixture.redis.opsForHash().get(key, "progress")));
				// past the write's deadline (backend clock), cut the connection and let replies through: the client
				// reconnects and may re-send the script, whose second run finds the deadline passed
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> fixture.serverMillis() >= startedAtBackend + 1_500);
				proxy.cut();
				proxy.dropReplies(false);
				FencedWriteResult result = write.get(30, TimeUnit.SECONDS);
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				assertThat(result.outcome()).as("never a refusal for a checkpoint the first run stored")
					.isIn(FenceOutcome.ACCEPTED, FenceOutcome.OUTCOME_UNKNOWN);
				assertThat(a.isLost()).isFalse();
				assertThat(took).as("bounded by the 800 ms deadline (10x margin)").isLessThan(Duration.ofSeconds(8));
			}
			finally {
				proxied.destroy();
			}
		}
	}

	@Test
	void readWithRedisUnreachableThrowsNothing() throws Exception {
		LeaseContext a = fixture.acquire(fixture.identity("cp-read-unreachable"), "alice", 30_000);
		LettuceConnectionFactory nowhere = RedisServers.factory("127.0.0.1", RedisServerProcess.freePort());
		try {
			StringRedisTemplate template = new StringRedisTemplate(nowhere);
			template.afterPropertiesSet();
			RedisCheckpointStore store = new RedisCheckpointStore(template, Duration.ofMillis(800),
					Clock.systemUTC());
			assertThatCode(() -> store.read(a.identity())).doesNotThrowAnyException();
			assertThatCode(() -> store.write(a, CheckpointState.IN_PROGRESS, "x")).doesNotThrowAnyException();
		}
		finally {
			nowhere.destroy();
		}
	}

}
