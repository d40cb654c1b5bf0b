package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The durable audit sink ({@link RedisStreamAuditSink}) on a standalone primary with one replica
 * ({@link ReplicatedRedis}, no Sentinel) and the store's default replica rule (every replica the primary reports), the
 * replication link held in its proxy so that a {@code WAIT} stays blocked on the primary until the test releases it:
 * <ul>
 * <li>the very first write of a sink already waits for the replica (it learns the primary's replicas before sending,
 * instead of sending with a count of none), and the wait does not hold up the template's shared connection;</li>
 * <li>a write the replica does not acknowledge within the client's command timeout fails with
 * {@link AuditWriteException};</li>
 * <li>another connection of the same client dropping while a write waits does not void that write's
 * acknowledgement: only a drop of the sink's own connection (where the wait was sent) does.</li>
 * </ul>
 */
class ReplicatedStreamAuditSinkTests {

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	private final LockIdentity identity = LockIdentity.of("tenant-a",
			"ps-" + UUID.randomUUID().toString().substring(0, 8), "ns", "Target-1", "actor", "default", null);

	private final ExecutorService writer = Executors.newSingleThreadExecutor();

	@Test
	void theFirstWriteOfASinkIsConfirmedOnlyOnceTheReplicaHasIt() throws Exception {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				FailoverClients.Client client = redis.primaryClient()) {
			StringRedisTemplate template = new StringRedisTemplate(client.factory());
			RedisStreamAuditSink sink = sink(client);
			try {
				template.opsForValue().get("warm-up"); // the template's shared connection is open before the write
				redis.pauseLink();
				CompletableFuture<List<String>> first = CompletableFuture.supplyAsync(() -> record(sink, 0), this.writer);
				awaitBlockedOnThePrimary(redis, first);
				// the wait runs on the sink's own connection: the application's calls on the shared one are answered
				long started = System.nanoTime();
				template.opsForValue().get("while-the-sink-waits");
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
				assertThat(first).as("confirmed before the replica has it").isNotDone();
				redis.resumeLink();
				List<String> ids = first.get(10, TimeUnit.SECONDS);
				assertThat(requestIds(redis, redis.replicaPort())).containsExactlyElementsOf(ids);
			}
			finally {
				sink.close();
				this.writer.shutdownNow();
			}
		}
	}

	@Test
	void aWriteTheReplicaDoesNotAcknowledgeWithinTheCommandTimeoutFails() {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				FailoverClients.Client client = redis.primaryClient()) {
			RedisStreamAuditSink sink = sink(client);
			try {
				redis.pauseLink();
				CompletableFuture<List<String>> write = CompletableFuture.supplyAsync(() -> record(sink, 0),
						this.writer);
				awaitBlockedOnThePrimary(redis, write);
				// the client's command timeout is 10 s (FailoverClients); the wait is bounded by it
				assertThat(write).failsWithin(Duration.ofSeconds(15))
					.withThrowableThat()
					.havingRootCause()
					.isInstanceOf(AuditWriteException.class);
				redis.resumeLink();
				// the entries may be there (not confirmed is not absent); the next write is confirmed again
				List<String> next = record(sink, 1);
				assertThat(requestIds(redis, redis.replicaPort())).containsSubsequence(next);
			}
			finally {
				sink.close();
				this.writer.shutdownNow();
			}
		}
	}

	@Test
	void anotherConnectionOfTheClientDroppingDuringAWaitLeavesTheWriteConfirmed() throws Exception {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				FailoverClients.Client client = redis.primaryClient()) {
			RedisStreamAuditSink sink = sink(client);
			try {
				List<String> confirmed = new ArrayList<>(record(sink, 0));
				redis.pauseLink();
				CompletableFuture<List<String>> second = CompletableFuture.supplyAsync(() -> record(sink, 1),
						this.writer);
				awaitBlockedOnThePrimary(redis, second);
				// another connection of the application's client (as the store's or the template's) opens and closes
				RedisClient lettuce = (RedisClient) client.factory().getNativeClient();
				try (StatefulRedisConnection<String, String> other = lettuce.connect()) {
					assertThat(other.sync().ping()).isEqualTo("PONG");
				}
				redis.resumeLink();
				confirmed.addAll(second.get(10, TimeUnit.SECONDS));
				assertThat(requestIds(redis, redis.replicaPort())).containsExactlyElementsOf(confirmed);
			}
			finally {
				sink.close();
				this.writer.shutdownNow();
			}
		}
	}

	/** As the admin auto-configuration builds it: the store's default replica rule. */
	private static RedisStreamAuditSink sink(FailoverClients.Client client) {
		return new RedisStreamAuditSink(new StringRedisTemplate(client.factory()), 100_000,
				RedisStreamAuditSink.ADMIN_STREAM_LENGTH, ReplicaAcknowledgement.allReplicas()::required);
	}

	/** Until the primary holds a client blocked (the sink's {@code WAIT}), failing at once if the write completed. */
	private static void awaitBlockedOnThePrimary(ReplicatedRedis redis, CompletableFuture<?> write) {
		await("a WAIT blocked on the primary").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.failFast("the write completed without waiting for the replica", write::isDone)
			.until(() -> infoField(redis, redis.primaryPort(), "clients", "blocked_clients") >= 1);
	}

	/** One batch of 5 events; returns their request ids. */
	private List<String> record(RedisStreamAuditSink sink, int batch) {
		return StreamAuditEvents.recordBatch(sink, List.of(this.identity), batch, 5);
	}

	private List<String> requestIds(ReplicatedRedis redis, int port) {
		String stream = RedisStreamAuditSink.routineStreamKey(this.identity.scope());
		return StreamAuditEvents.requestIds(redis.on(port, (node) -> node.xrange(stream, Range.create("-", "+"))));
	}

	private static long infoField(ReplicatedRedis redis, int port, String section, String field) {
		for (String line : redis.info(port, section).split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		throw new IllegalStateException("no " + field + " in INFO " + section);
	}

}
