package io.starintel.lease.it.fence;

import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.starintel.lease.fence.checkpoint.Checkpoint;
import io.starintel.lease.fence.checkpoint.CheckpointReadStatus;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.test.RedisServerProcess;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.context.LeaseContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Checkpoint enforcement point against the real Redis (and Valkey: {@link ValkeyCheckpointFenceTests}): lease
 * validation and checkpoint write are one script, so an expired or superseded holder can never overwrite progress or
 * a terminal state.
 */
class CheckpointFenceTests {

	static FenceFixture fixture;

	static RedisCheckpointStore checkpoints;

	@BeforeAll
	static void setUp(TestInfo testInfo) {
		fixture = new FenceFixture(RedisServerKind.of(testInfo));
		checkpoints = new RedisCheckpointStore(fixture.redis);
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@Test
	void formerHolderCheckpointingAfterExpiryIsLeaseLost() {
		LeaseContext a = fixture.acquire(fixture.identity("cp-expiry"), "alice", 300);
		assertThat(checkpoints.write(a, CheckpointState.IN_PROGRESS, "10%").isAccepted()).isTrue();
		fixture.awaitExpired(a);
		FencedWriteResult late = checkpoints.write(a, CheckpointState.COMPLETED, "100%");
		assertThat(late.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(late.reason()).isIn(Reason.EXPIRED, Reason.STALE_LEASE);
		assertThat(a.isLost()).isTrue();
		Checkpoint stored = checkpoints.read(a.identity()).found().orElseThrow();
		assertThat(stored.state()).isEqualTo(CheckpointState.IN_PROGRESS);
		assertThat(stored.progress()).isEqualTo("10%");
		assertThat(stored.fencingToken()).isEqualTo(a.fencingToken());
	}

	@Test
	void formerHolderCheckpointingAfterNewAcquisitionIsRejected() {
		LeaseContext a = fixture.acquire(fixture.identity("cp-successor"), "alice", 300);
		assertThat(checkpoints.write(a, CheckpointState.IN_PROGRESS, "A 50%").isAccepted()).isTrue();
		fixture.awaitExpired(a);
		LeaseContext b = fixture.acquire(fixture.identity("cp-successor"), "bob", 5_000);
		FencedWriteResult done = checkpoints.write(b, CheckpointState.COMPLETED, "B done");
		assertThat(done.isAccepted()).isTrue();
		assertThat(done.stamp().acceptedAt()).isNotNull();
		FencedWriteResult late = checkpoints.write(a, CheckpointState.FAILED, "A late");
		assertThat(late.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(late.reason()).isEqualTo(Reason.TOKEN_BELOW_HIGH_WATER_MARK);
		Checkpoint stored = checkpoints.read(b.identity()).found().orElseThrow();
		assertThat(stored.state()).isEqualTo(CheckpointState.COMPLETED);
		assertThat(stored.progress()).isEqualTo("B done");
		assertThat(stored.fencingToken()).isEqualTo(b.fencingToken());
		assertThat(stored.leaseId()).isEqualTo(b.leaseId());
	}

	@Test
	void theSameWriteSentAgainAnswersWhatTheFirstRunDid() {
		LeaseContext a = fixture.acquire(fixture.identity("cp-idempotent"), "alice", 300);
		FencedWriteResult first = checkpoints.write(a, CheckpointState.COMPLETED, "A done", "corr_resent_1");
		assertThat(first.isAccepted()).isTrue();
		assertThat(first.correlationId()).isEqualTo("corr_resent_1");
		fixture.awaitExpired(a);
		LeaseContext b = fixture.acquire(fixture.identity("cp-idempotent"), "bob", 30_000);
		// the re-sent script runs after A expired and B took over: it answers the first run, not lease_lost
		FencedWriteResult again = checkpoints.write(a, CheckpointState.COMPLETED, "A done", "corr_resent_1");
		assertThat(again.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(again.detail()).isEqualTo("replayed");
		assertThat(again.stamp().acceptedAt()).isEqualTo(first.stamp().acceptedAt());
		assertThat(a.isLost()).isFalse();
		// the same id with other content is a conflict, nothing is written
		assertThat(checkpoints.write(a, CheckpointState.FAILED, "other", "corr_resent_1").outcome())
			.isEqualTo(FenceOutcome.CONFLICT);
		// a new request of the stale holder is refused and marks it lost
		FencedWriteResult late = checkpoints.write(a, CheckpointState.FAILED, "A late");
		assertThat(late.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(a.isLost()).isTrue();
		assertThat(checkpoints.read(b.identity()).found().orElseThrow().progress()).isEqualTo("A done");
	}

	@Test
	void lostReplyIsOutcomeUnknownWithinTheDeadlineAndResolvedByResendingAfterTheConnectionWasCut()
			throws Exception {
		URI uri = fixture.server.uri();
		LeaseContext a = fixture.acquire(fixture.identity("cp-reply-lost"), "alice", 30_000);
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				StringRedisTemplate template = new StringRedisTemplate(proxied);
				RedisCheckpointStore store = new RedisCheckpointStore(template, Duration.ofMillis(800),
						Clock.systemUTC());
				assertThat(store.read(a.identity()).status()).isEqualTo(CheckpointReadStatus.NOT_FOUND);
				proxy.dropReplies(true);
				long sent = proxy.forwardedRequestBytes();
				long started = System.nanoTime();
				FencedWriteResult unknown = store.write(a, CheckpointState.IN_PROGRESS, "50%");
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				assertThat(unknown.outcome()).isEqualTo(FenceOutcome.OUTCOME_UNKNOWN);
				assertThat(unknown.reason()).isEqualTo(Reason.REPLY_LOST);
				// bounded by the 800 ms deadline, not the client's 10 s command timeout (10x margin: 8 s)
				assertThat(took).isLessThan(Duration.ofSeconds(8));
				assertThat(proxy.forwardedRequestBytes()).as("submitted").isGreaterThan(sent);
				// a read through the silent proxy is typed, bounded, and throws nothing
				assertThat(store.read(a.identity()).status()).isEqualTo(CheckpointReadStatus.BACKEND_UNAVAILABLE);
				// the connection is cut, replies flow again; the client reconnects and the write is re-sent
				proxy.cut();
				proxy.dropReplies(false);
				FencedWriteResult resolved = await().atMost(Duration.ofSeconds(20))
					.until(() -> store.write(a, CheckpointState.IN_PROGRESS, "50%", unknown.correlationId()),
							(r) -> r.outcome() != FenceOutcome.OUTCOME_UNKNOWN
									&& r.outcome() != FenceOutcome.BACKEND_UNAVAILABLE);
				assertThat(resolved.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
				assertThat(resolved.detail()).as("the first run had stored it").isEqualTo("replayed");
			}
			finally {
				proxied.destroy();
			}
		}
		assertThat(checkpoints.read(a.identity()).found().orElseThrow().progress()).isEqualTo("50%");
	}

	@Test
	void unreachableRedisGivesTypedResultsAndNoException() throws Exception {
		LeaseContext a = fixture.acquire(fixture.identity("cp-unreachable"), "alice", 30_000);
		LettuceConnectionFactory nowhere = RedisServers.factory("127.0.0.1", RedisServerProcess.freePort());
		try {
			RedisCheckpointStore store = new RedisCheckpointStore(new StringRedisTemplate(nowhere),
					Duration.ofMillis(800), Clock.systemUTC());
			assertThat(store.read(a.identity()).status()).isEqualTo(CheckpointReadStatus.BACKEND_UNAVAILABLE);
			FencedWriteResult write = store.write(a, CheckpointState.IN_PROGRESS, "x");
			assertThat(write.outcome()).isIn(FenceOutcome.BACKEND_UNAVAILABLE, FenceOutcome.OUTCOME_UNKNOWN);
			assertThat(a.isLost()).isFalse();
		}
		finally {
			nowhere.destroy();
		}
	}

	/**
	 * A checkpoint record that is not what the library writes (a token that is no decimal number below 2^53 - 1, or a
	 * key of another type) is corrupt, and fails closed with that answer: the read is CORRUPT_RECORD, the holder's
	 * write is refused as corrupt_record and changes nothing. Never outcome-unknown (a script error), never lease_lost
	 * (the holder still holds), never a token compared as a float (found by an outside probe).
	 */
	@Test
	void aCorruptCheckpointIsCorruptForTheReadAndTheWriteAndIsNeverOverwritten() {
		int n = 0;
		for (String corrupt : List.of("abc", "1e20", "12.5", "-5", "+5", "9007199254740993", "")) {
			LeaseContext a = fixture.acquire(fixture.identity("cp-corrupt-" + n++), "alice", 30_000);
			assertThat(checkpoints.write(a, CheckpointState.IN_PROGRESS, "10%").isAccepted()).isTrue();
			String key = RedisCheckpointStore.key(a.identity());
			fixture.redis.<String, String>opsForHash().put(key, "fencing_token", corrupt);
			assertThat(checkpoints.read(a.identity()).status()).as(corrupt).isEqualTo(CheckpointReadStatus.CORRUPT_RECORD);
			FencedWriteResult write = checkpoints.write(a, CheckpointState.COMPLETED, "done");
			assertThat(write.outcome()).as(corrupt).isEqualTo(FenceOutcome.BACKEND_UNAVAILABLE);
			assertThat(write.reason()).as(corrupt).isEqualTo(Reason.CORRUPT_RECORD);
			assertThat(a.isLost()).as(corrupt).isFalse();
			assertThat(fixture.redis.<String, String>opsForHash().get(key, "fencing_token")).isEqualTo(corrupt);
		}
		LeaseContext b = fixture.acquire(fixture.identity("cp-corrupt-type"), "bob", 30_000);
		String key = RedisCheckpointStore.key(b.identity());
		fixture.redis.opsForValue().set(key, "not a hash");
		assertThat(checkpoints.read(b.identity()).status()).isEqualTo(CheckpointReadStatus.CORRUPT_RECORD);
		FencedWriteResult write = checkpoints.write(b, CheckpointState.COMPLETED, "done");
		assertThat(write.outcome()).isEqualTo(FenceOutcome.BACKEND_UNAVAILABLE);
		assertThat(write.reason()).isEqualTo(Reason.CORRUPT_RECORD);
		assertThat(fixture.redis.opsForValue().get(key)).isEqualTo("not a hash");
	}

	@Test
	void checkpointWithoutContextIsRefused() {
		assertThat(checkpoints.writeCurrent(CheckpointState.IN_PROGRESS, "x").outcome())
			.isEqualTo(FenceOutcome.NO_LEASE_CONTEXT);
		LeaseContext b = fixture.acquire(fixture.identity("cp-current"), "bob", 5_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(checkpoints.writeCurrent(CheckpointState.RESCHEDULED, "next run").isAccepted()).isTrue();
		}
		assertThat(checkpoints.read(b.identity()).found().orElseThrow().state()).isEqualTo(CheckpointState.RESCHEDULED);
	}

}
