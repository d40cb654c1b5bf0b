package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.Range;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
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
 * The durable audit sink ({@link RedisStreamAuditSink}) through a Sentinel-configured Spring Data Redis client (a
 * primary, its replica and three sentinels: {@link ReplicatedRedis}, {@link LocalSentinel}), as the admin module's
 * auto-configuration builds it on {@code spring.data.redis.sentinel.*}: batches go out on the template's shared
 * connection to the primary that Sentinel names, without a connection each; after a forced {@code SENTINEL FAILOVER}
 * the sink's batches reach the promoted node (a batch caught by the switch fails with {@link AuditWriteException}, no
 * other exception), and every batch the sink confirmed, before and after, is on the promoted node in order; and through
 * the audit pipeline, which sends a durable sink's failed events again, every event submitted before, during and after
 * the failover is on the promoted node, in order, none counted as failed.
 */
class SentinelStreamAuditSinkTests {

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	private final LockIdentity identity = LockIdentity.of("tenant-a",
			"ps-" + UUID.randomUUID().toString().substring(0, 8), "ns", "Target-1", "actor", "default", null);

	@Test
	void batchesFollowASentinelFailoverAndEveryConfirmedEntryIsOnThePromotedNode() {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 3);
				FailoverClients.Client client = sentinel.client()) {
			try {
				// as the admin auto-configuration builds it: the store's default replica rule
				RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(client.factory()),
						100_000, RedisStreamAuditSink.ADMIN_STREAM_LENGTH, ReplicaAcknowledgement.allReplicas()::required);
				String stream = RedisStreamAuditSink.routineStreamKey(this.identity.scope());
				List<String> confirmed = new ArrayList<>();
				confirmed.addAll(record(sink, 0)); // the shared connection is opened here
				int first = redis.primaryPort();
				long before = connectionsReceived(redis, first);
				for (int b = 1; b < 10; b++) {
					confirmed.addAll(record(sink, b));
				}
				assertThat(connectionsReceived(redis, first) - before).as("connections opened by 9 batches")
					.isLessThan(5);
				assertThat(requestIds(redis, first, stream)).containsExactlyElementsOf(confirmed);

				// the replica has every confirmed entry before the switch (a forced failover does not wait for it)
				assertThat(redis.waitForReplicas(1, Duration.ofSeconds(5))).isEqualTo(1);
				int promoted = sentinel.failoverAndAwait(redis, first, Duration.ofSeconds(60));
				assertThat(promoted).isNotEqualTo(first);
				for (int b = 10; b < 20; b++) {
					confirmed.addAll(recordUntilConfirmed(sink, b));
				}
				// an attempt that was not confirmed may have landed too (a retry writes it again): the confirmed
				// entries are there, in their order
				List<String> onPromoted = requestIds(redis, promoted, stream);
				assertThat(onPromoted).containsSubsequence(confirmed).containsAll(confirmed);
			}
			catch (AssertionError | RuntimeException ex) {
				throw new AssertionError(ex.getMessage() + "\n" + sentinel.logs(), ex);
			}
		}
	}

	@Test
	void everyEventThroughTheAuditPipelineLandsOnThePromotedNodeInOrder() {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 3);
				FailoverClients.Client client = sentinel.client()) {
			try (RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(client.factory()),
					100_000, RedisStreamAuditSink.ADMIN_STREAM_LENGTH, ReplicaAcknowledgement.allReplicas()::required)) {
				AtomicLong failed = new AtomicLong();
				List<String> submitted = new ArrayList<>();
				String stream = RedisStreamAuditSink.routineStreamKey(this.identity.scope());
				// as the starter wires it, with a retry window longer than a failover
				try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(sink), 10_000, Duration.ofSeconds(10),
						(dropped) -> {
						}, failed::addAndGet, Duration.ofSeconds(90))) {
					for (int i = 0; i < 50; i++) {
						submitted.add(submit(pipeline, submitted.size()));
					}
					int first = redis.primaryPort();
					await("the events before the failover on the primary").atMost(Duration.ofSeconds(30))
						.until(() -> requestIds(redis, first, stream).size() == 50);
					CompletableFuture<Integer> promotion = CompletableFuture
						.supplyAsync(() -> sentinel.failoverAndAwait(redis, first, Duration.ofSeconds(60)));
					// an event every 20 ms while Sentinel switches (the demoted primary refuses them: no replica)
					await("the promotion").atMost(Duration.ofSeconds(90))
						.pollInSameThread()
						.pollInterval(Duration.ofMillis(20))
						.until(() -> {
							submitted.add(submit(pipeline, submitted.size()));
							return promotion.isDone();
						});
					int promoted = promotion.join();
					assertThat(promoted).isNotEqualTo(first);
					for (int i = 0; i < 50; i++) {
						submitted.add(submit(pipeline, submitted.size()));
					}
					await("every event on the promoted node").atMost(Duration.ofSeconds(90))
						.pollInterval(Duration.ofMillis(200))
						.until(() -> requestIds(redis, promoted, stream).containsAll(submitted));
					// at least once: a copy may follow its first write, never precede a later event
					assertThat(requestIds(redis, promoted, stream).stream().distinct().toList())
						.containsExactlyElementsOf(submitted);
					assertThat(failed).hasValue(0);
					assertThat(pipeline.droppedCount()).isZero();
				}
			}
			catch (AssertionError | RuntimeException ex) {
				throw new AssertionError(ex.getMessage() + "\n" + sentinel.logs(), ex);
			}
		}
	}

	/** Submits one routine event to the pipeline; returns its request id. */
	private String submit(AsyncAuditPipeline pipeline, int n) {
		String id = "req-pipeline-" + n;
		pipeline.submit(StreamAuditEvents.renewal(this.identity, id, "corr-pipeline"));
		return id;
	}

	/** One batch of 10 events; returns their request ids. */
	private List<String> record(RedisStreamAuditSink sink, int batch) {
		return StreamAuditEvents.recordBatch(sink, List.of(this.identity), batch, 10);
	}

	/** {@link #record} again while the client follows the promotion: only {@link AuditWriteException} may escape. */
	private List<String> recordUntilConfirmed(RedisStreamAuditSink sink, int batch) {
		return await("batch " + batch + " confirmed after the promotion").atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptionsInstanceOf(AuditWriteException.class)
			.until(() -> record(sink, batch), (ids) -> true);
	}

	private static List<String> requestIds(ReplicatedRedis redis, int port, String stream) {
		return StreamAuditEvents.requestIds(redis.on(port, (node) -> node.xrange(stream, Range.create("-", "+"))));
	}

	private static long connectionsReceived(ReplicatedRedis redis, int port) {
		for (String line : redis.info(port, "stats").split("\r?\n")) {
			if (line.startsWith("total_connections_received:")) {
				return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		throw new IllegalStateException("no total_connections_received in INFO stats");
	}

}
