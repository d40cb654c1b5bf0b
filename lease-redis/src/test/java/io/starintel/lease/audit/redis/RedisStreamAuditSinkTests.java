package io.starintel.lease.audit.redis;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import io.starintel.lease.audit.internal.AuditEventBuilder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Against real Redis ({@code STARINTEL_REDIS_URL} or redis://127.0.0.1:6379, the convention of lease-test-support's
 * {@code ServiceEnvironment}): events land in the program's bounded stream with the
 * shared field names, and a failed write is reported, not swallowed.
 */
class RedisStreamAuditSinkTests {

	private final LettuceConnectionFactory factory = connect(redisUri());

	private final StringRedisTemplate redis = new StringRedisTemplate(this.factory);

	private final LockIdentity identity = LockIdentity.of("tenant-a",
			"p-" + UUID.randomUUID().toString().substring(0, 8), "ns", "Target-1", "actor", "default", null);

	// lease-test-support depends on this module, so its tests read the variable themselves (same name, same default)
	private static URI redisUri() {
		String url = System.getenv("STARINTEL_REDIS_URL");
		return URI.create((url == null || url.isBlank()) ? "redis://127.0.0.1:6379" : url);
	}

	private static LettuceConnectionFactory connect(URI uri) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379));
		factory.afterPropertiesSet();
		return factory;
	}

	@AfterEach
	void cleanUp() {
		this.redis.delete(RedisStreamAuditSink.streamKey(this.identity.scope()));
		this.redis.delete(RedisStreamAuditSink.routineStreamKey(this.identity.scope()));
		this.factory.destroy();
	}

	private AuditEvent event(int i) {
		return new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_LOST)
			.time(Instant.now(), Instant.now())
			.identity(this.identity)
			.ids("req-" + i, "corr-" + i)
			.principal(PrincipalClass.WORKER, "worker-1", "key-1", "instance-1")
			.lease("lease-1", 42L)
			.build();
	}

	@Test
	void whenRecordedThenReadBackWithSharedFieldNamesAndBounded() {
		RedisStreamAuditSink sink = new RedisStreamAuditSink(this.redis, 10);
		for (int i = 0; i < 300; i++) {
			sink.record(event(i));
		}
		// routine events (here: renewals) go to the routine stream, never to the admin stream
		assertThat(this.redis.hasKey(RedisStreamAuditSink.streamKey(this.identity.scope()))).isFalse();
		String key = RedisStreamAuditSink.routineStreamKey(this.identity.scope());
		assertThat(key).isEqualTo("starintel:target-lease:v1:{" + this.identity.scope().hashTag() + "}:audit:routine");
		Long size = this.redis.opsForStream().size(key);
		assertThat(size).isLessThan(300L);
		List<MapRecord<String, Object, Object>> records = this.redis.opsForStream().read(StreamOffset.fromStart(key));
		Map<Object, Object> last = records.get(records.size() - 1).getValue();
		assertThat(last).containsEntry("event_type", "target_lease_renew")
			.containsEntry("request_id", "req-299")
			.containsEntry("result_code", "lease_lost")
			.containsEntry("retryable", "false")
			.containsEntry("tenant_id", "tenant-a")
			.containsEntry("target_id", "Target-1")
			.containsEntry("fencing_token", "42")
			.containsEntry("backend_health", "ok")
			.containsKeys("backend_time", "decision_id", "latency_ms");
		assertThat(last.values()).noneMatch(v -> v.toString().contains(this.identity.keyDigest()));
	}

	@Test
	void aBatchIsWrittenInOrderToEachEventsStream() {
		RedisStreamAuditSink sink = new RedisStreamAuditSink(this.redis, 1_000);
		List<AuditEvent> batch = new java.util.ArrayList<>();
		for (int i = 0; i < 50; i++) {
			batch.add(event(i));
		}
		batch.add(new AuditEventBuilder(AuditEventType.REVOKE, ResultCode.LEASE_REVOKED)
			.time(Instant.now(), Instant.now())
			.identity(this.identity)
			.ids("req-admin", "corr-admin")
			.principal(PrincipalClass.ADMINISTRATOR, "admin-1", "key-a", "instance-1")
			.lease("lease-1", 42L)
			.build());
		sink.recordAll(batch);
		String routine = RedisStreamAuditSink.routineStreamKey(this.identity.scope());
		List<MapRecord<String, Object, Object>> records = this.redis.opsForStream()
			.read(StreamOffset.fromStart(routine));
		assertThat(records).extracting((record) -> record.getValue().get("request_id"))
			.containsExactlyElementsOf(java.util.stream.IntStream.range(0, 50).mapToObj((i) -> "req-" + i).toList());
		List<MapRecord<String, Object, Object>> admin = this.redis.opsForStream()
			.read(StreamOffset.fromStart(RedisStreamAuditSink.streamKey(this.identity.scope())));
		assertThat(admin).singleElement()
			.satisfies((record) -> assertThat(record.getValue()).containsEntry("request_id", "req-admin"));
	}

	@Test
	void batchesGoOutOnOneConnectionWithoutOpeningOneEach() {
		// Spring Data Redis's pipeline takes a dedicated connection, which without a pool is a new connection (and
		// handshake) per batch: 20 batches would open 20; the sink keeps one connection of its own
		RedisStreamAuditSink sink = new RedisStreamAuditSink(this.redis, 10_000);
		sink.recordAll(List.of(event(-2), event(-1))); // the sink's connection is opened here
		long before = connectionsReceived();
		for (int b = 0; b < 20; b++) {
			List<AuditEvent> batch = new java.util.ArrayList<>();
			for (int i = 0; i < 10; i++) {
				batch.add(event(b * 10 + i));
			}
			sink.recordAll(batch);
		}
		// other clients of the same server may connect meanwhile: a margin well below one connection per batch
		assertThat(connectionsReceived() - before).isLessThan(5);
		List<MapRecord<String, Object, Object>> records = this.redis.opsForStream()
			.read(StreamReadOptions.empty().count(1_000),
					StreamOffset.fromStart(RedisStreamAuditSink.routineStreamKey(this.identity.scope())));
		assertThat(records).hasSize(202);
		assertThat(records.get(201).getValue()).containsEntry("request_id", "req-199")
			.containsEntry("fencing_token", "42")
			.containsKeys("latency_ms", "backend_time", "decision_id");
	}

	@Test
	void aBatchThatRedisDoesNotAnswerFailsAtTheCommandTimeoutEvenWithoutLettucesOwnExpiry() {
		// Lettuce's command expiry off (a client configured so): the sink's own bound is what ends the wait
		LettuceConnectionFactory quick = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redisUri().getHost(),
						(redisUri().getPort() > 0) ? redisUri().getPort() : 6379),
				LettuceClientConfiguration.builder()
					.commandTimeout(Duration.ofMillis(300))
					.clientOptions(ClientOptions.builder()
						.timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
						.build())
					.build());
		quick.afterPropertiesSet();
		try {
			RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(quick), 10_000);
			sink.recordAll(List.of(event(1), event(2))); // the sink's connection is open before the pause
			// every client's writes wait 5 s; the batch must give up at its 300 ms command timeout, not wait them out
			this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT",
					"PAUSE".getBytes(StandardCharsets.US_ASCII), "5000".getBytes(StandardCharsets.US_ASCII),
					"WRITE".getBytes(StandardCharsets.US_ASCII)));
			long started = System.nanoTime();
			try {
				assertThatExceptionOfType(AuditWriteException.class)
					.isThrownBy(() -> sink.recordAll(List.of(event(3), event(4), event(5))))
					.withMessage("audit stream write failed");
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(3_000));
			}
			finally {
				this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT",
						"UNPAUSE".getBytes(StandardCharsets.US_ASCII)));
			}
		}
		finally {
			quick.destroy();
		}
	}

	@Test
	void aWriteNeedingMoreReplicasThanThePrimaryReportsIsRefusedAtOnceWithNothingSent() {
		// one replica required of a server that has none: the sink asks the primary before its first write and sends
		// nothing (a wait on the src/it replicated fixtures: ReplicatedStreamAuditSinkTests)
		try (RedisStreamAuditSink sink = new RedisStreamAuditSink(this.redis, 10_000,
				RedisStreamAuditSink.ADMIN_STREAM_LENGTH, (reported, sentinel) -> 1)) {
			String routine = RedisStreamAuditSink.routineStreamKey(this.identity.scope());
			long entries = this.redis.opsForStream().size(routine);
			for (int attempt = 1; attempt <= 2; attempt++) {
				long refusedFrom = System.nanoTime();
				assertThatExceptionOfType(AuditWriteException.class)
					.isThrownBy(() -> sink.recordAll(List.of(event(1), event(2))))
					.withMessage("audit stream write refused: fewer replicas online than required");
				assertThat(Duration.ofNanos(System.nanoTime() - refusedFrom)).isLessThan(Duration.ofMillis(1_000));
			}
			assertThat(this.redis.opsForStream().size(routine)).isEqualTo(entries);
			assertThat(blockedClients()).isZero();
		}
	}

	private long connectionsReceived() {
		return serverStat("stats", "total_connections_received");
	}

	private long blockedClients() {
		return serverStat("clients", "blocked_clients");
	}

	/** A numeric field of the server's {@code INFO section}. */
	private long serverStat(String section, String field) {
		String value = String.valueOf(this.redis.execute((RedisCallback<Object>) (connection) -> connection
			.serverCommands()
			.info(section)
			.getProperty(field)));
		return Long.parseLong(value.trim());
	}

	@Test
	void whenRedisIsUnreachableThenABatchWriteFails() {
		LettuceConnectionFactory closed = connect(URI.create("redis://127.0.0.1:1"));
		try {
			RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(closed), 10);
			assertThatExceptionOfType(AuditWriteException.class)
				.isThrownBy(() -> sink.recordAll(List.of(event(1), event(2))))
				.withMessage("audit stream write failed");
		}
		finally {
			closed.destroy();
		}
	}

	@Test
	void whenRedisIsUnreachableThenWriteFails() {
		LettuceConnectionFactory closed = connect(URI.create("redis://127.0.0.1:1"));
		try {
			RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(closed), 10);
			assertThatExceptionOfType(AuditWriteException.class).isThrownBy(() -> sink.record(event(1)))
				.withMessage("audit stream write failed");
		}
		finally {
			closed.destroy();
		}
	}

}
