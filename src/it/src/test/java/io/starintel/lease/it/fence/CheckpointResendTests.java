package io.starintel.lease.it.fence;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
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
 * reconnects and re-sends before the deadline) answers the first run's recorded decision, never {@code lease_lost}
 * for a checkpoint the first run stored; a write waits no longer than its deadline; a read with Redis unreachable throws nothing.
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

	/**
	 * The first run stores the checkpoint and its reply is lost; the lease is then released, so a second run of the
	 * same call would find no holder ({@code lease_lost}); the connection is cut well <em>before</em> the deadline
	 * and replies flow again, so the client's re-sent call runs in time. Only the replay of the request's recorded
	 * decision (fence.lua's {@code checkpoint}: a decided request id answers its decision again) makes the answer
	 * {@code fenced_write_accepted}; without it the re-run answers {@code lease_lost} for a checkpoint that was stored.
	 */
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
				RedisCheckpointStore store = new RedisCheckpointStore(template, Duration.ofSeconds(8),
						Clock.systemUTC());
				assertThat(template.hasKey("warm-up-" + key)).isFalse();
				// the store's own connection, opened while replies still flow (a new one could not finish its
				// handshake through the silent proxy: that write would be backend_unavailable, never sent)
				assertThat(store.read(a.identity()).status()).isEqualTo(CheckpointReadStatus.NOT_FOUND);
				proxy.dropReplies(true);
				long started = System.nanoTime();
				CompletableFuture<FencedWriteResult> write = CompletableFuture
					.supplyAsync(() -> store.write(a, CheckpointState.COMPLETED, "done"));
				// the first run stores the checkpoint; its reply is dropped
				await().atMost(Duration.ofSeconds(5))
					.until(() -> "done".equals(fixture.redis.opsForHash().get(key, "progress")));
				// a re-run now would be lease_lost: the lease is gone
				assertThat(fixture.store
					.release(new ReleaseRequest(a.handle(), Identifiers.generate("request"),
							Instant.now().plusSeconds(5)))
					.code()).isEqualTo(ResultCode.LEASE_RELEASED);
				// well before the 8 s deadline, cut the connection and let replies through: the client reconnects
				// and re-sends the call, which runs before its deadline
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
				proxy.cut();
				proxy.dropReplies(false);
				FencedWriteResult result = write.get(30, TimeUnit.SECONDS);
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				assertThat(took).as("answered before the deadline, by the re-sent call").isLessThan(Duration.ofSeconds(8));
				assertThat(result.outcome()).as("the stored checkpoint's recorded decision, replayed")
					.isEqualTo(FenceOutcome.ACCEPTED);
			}
			finally {
				proxied.destroy();
			}
		}
	}

	/** A write whose reply never comes waits no longer than its deadline: outcome unknown, not a refusal. */
	@Test
	void aWriteWithoutAReplyWaitsNoLongerThanItsDeadline() throws Exception {
		URI uri = RedisServers.uri();
		LeaseContext a = fixture.acquire(fixture.identity("cp-silent"), "alice", 30_000);
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				StringRedisTemplate template = new StringRedisTemplate(proxied);
				template.afterPropertiesSet();
				RedisCheckpointStore store = new RedisCheckpointStore(template, Duration.ofMillis(800),
						Clock.systemUTC());
				assertThat(store.read(a.identity()).status()).isEqualTo(CheckpointReadStatus.NOT_FOUND);
				proxy.dropReplies(true);
				long started = System.nanoTime();
				FencedWriteResult result = store.write(a, CheckpointState.COMPLETED, "done");
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				assertThat(result.outcome()).isEqualTo(FenceOutcome.OUTCOME_UNKNOWN);
				assertThat(a.isLost()).isFalse();
				assertThat(took).as("bounded by the 800 ms deadline (margin for the CI)").isLessThan(Duration.ofSeconds(4));
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
