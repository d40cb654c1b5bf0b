package io.starintel.lease.it.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The durable audit sink ({@link RedisStreamAuditSink}) on a real 3-node Redis Cluster (a Valkey Cluster in
 * {@link ValkeyClusterStreamAuditSinkTests}) that this class starts on loopback ({@link LocalRedisCluster}), through a
 * {@link StringRedisTemplate} on Spring Data Redis's cluster connection factory, as the admin module's
 * auto-configuration builds it on {@code spring.data.redis.cluster.*}: a batch whose events belong to programs served
 * by different nodes goes out on the template's shared cluster connection (Lettuce routes each {@code XADD} by its
 * stream's slot), every entry lands, in order, on the node that serves its program; batches open no connection of
 * their own; and a batch that one node does not answer fails at the command timeout.
 */
class RedisClusterStreamAuditSinkTests {

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static LocalRedisCluster cluster;

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate redis;

	private static int programs;

	@BeforeAll
	static void startCluster(TestInfo testInfo) {
		cluster = LocalRedisCluster.start(RedisServerKind.of(testInfo));
		factory = cluster.connectionFactory(
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		redis = new StringRedisTemplate(factory);
	}

	@AfterAll
	static void stopCluster() {
		if (factory != null) {
			factory.destroy();
			factory = null;
		}
		if (cluster != null) {
			cluster.close();
			cluster = null;
		}
	}

	@Test
	void aBatchAcrossNodesLandsInOrderOnTheNodeOfEachProgram() {
		Map<Integer, LockIdentity> identityByNode = identityByNode();
		RedisStreamAuditSink sink = new RedisStreamAuditSink(redis, 10_000);
		List<AuditEvent> batch = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			for (LockIdentity identity : identityByNode.values()) {
				batch.add(routine(identity, i));
			}
		}
		identityByNode.values().forEach((identity) -> batch.add(revoke(identity)));
		sink.recordAll(batch);
		identityByNode.forEach((port, identity) -> {
			String routine = RedisStreamAuditSink.routineStreamKey(identity.scope());
			List<StreamMessage<String, String>> entries = cluster.node(port).xrange(routine, Range.create("-", "+"));
			assertThat(entries).as("routine stream on node %d", port)
				.extracting((entry) -> entry.getBody().get("request_id"))
				.containsExactlyElementsOf(IntStream.range(0, 20).mapToObj((i) -> "req-" + i).toList());
			assertThat(entries.get(19).getBody()).containsEntry("event_type", "target_lease_renew")
				.containsEntry("program_id", identity.programId())
				.containsEntry("fencing_token", "42");
			String admin = RedisStreamAuditSink.streamKey(identity.scope());
			assertThat(cluster.node(port).xrange(admin, Range.create("-", "+"))).as("admin stream on node %d", port)
				.singleElement()
				.satisfies((entry) -> assertThat(entry.getBody()).containsEntry("request_id", "req-admin")
					.containsEntry("event_type", "target_lease_revoke"));
			assertOnlyOn(port, routine);
		});
	}

	@Test
	void batchesAcrossNodesOpenNoConnectionOfTheirOwn() {
		// Spring Data Redis's pipeline takes a dedicated connection, on a cluster a new cluster connection (its
		// topology read and a connection per node it writes to) per batch: 20 batches would open 60 or more
		Map<Integer, LockIdentity> identityByNode = identityByNode();
		RedisStreamAuditSink sink = new RedisStreamAuditSink(redis, 10_000);
		List<AuditEvent> warmUp = new ArrayList<>();
		identityByNode.values().forEach((identity) -> warmUp.add(routine(identity, -1)));
		sink.recordAll(warmUp); // the shared connection reaches every node here
		long before = connectionsReceived();
		for (int b = 0; b < 20; b++) {
			List<AuditEvent> batch = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				for (LockIdentity identity : identityByNode.values()) {
					batch.add(routine(identity, b * 4 + i));
				}
			}
			sink.recordAll(batch);
		}
		assertThat(connectionsReceived() - before).as("connections opened by 20 batches over %d nodes",
				identityByNode.size())
			.isLessThan(5);
		identityByNode.forEach((port, identity) -> assertThat(
				cluster.node(port).xlen(RedisStreamAuditSink.routineStreamKey(identity.scope())))
			.as("entries on node %d", port)
			.isEqualTo(81L));
	}

	@Test
	void aBatchThatOneNodeDoesNotAnswerFailsAtTheCommandTimeout() {
		// Lettuce's command expiry off (a client configured so): the sink's own bound is what ends the wait
		LettuceConnectionFactory quick = cluster.connectionFactory(LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofMillis(300))
			.clientOptions(ClientOptions.builder()
				.timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
				.build())
			.build());
		Map<Integer, LockIdentity> identityByNode = identityByNode();
		int paused = identityByNode.keySet().iterator().next();
		try {
			RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(quick), 10_000);
			List<AuditEvent> warmUp = new ArrayList<>();
			identityByNode.values().forEach((identity) -> warmUp.add(routine(identity, 0)));
			sink.recordAll(warmUp); // connected to every node before the pause
			// that node's writes wait 5 s; the batch must give up at its 300 ms command timeout, not wait them out
			pause(paused, "PAUSE", "5000", "WRITE");
			List<AuditEvent> batch = new ArrayList<>();
			identityByNode.values().forEach((identity) -> batch.add(routine(identity, 1)));
			long started = System.nanoTime();
			try {
				assertThatExceptionOfType(AuditWriteException.class).isThrownBy(() -> sink.recordAll(batch))
					.withMessage("audit stream write failed");
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(3_000));
			}
			finally {
				pause(paused, "UNPAUSE");
			}
		}
		finally {
			quick.destroy();
		}
	}

	/** Fresh programs, one per node: node client port → an identity whose program's slot that node serves. */
	private static Map<Integer, LockIdentity> identityByNode() {
		Map<Integer, LockIdentity> identityByNode = new LinkedHashMap<>();
		for (int i = 0; i < 500 && identityByNode.size() < LocalRedisCluster.NODES; i++) {
			LockIdentity identity = LockIdentity.of("tenant-cluster", "pa-" + RUN + "-" + (programs++), "ns",
					"Target-1", "actor", "default", null);
			int port = cluster.ownerOfSlot(SlotHash.getSlot(RedisStreamAuditSink.routineStreamKey(identity.scope())));
			identityByNode.putIfAbsent(port, identity);
		}
		assertThat(identityByNode).as("a program per node").hasSize(LocalRedisCluster.NODES);
		return identityByNode;
	}

	private static AuditEvent routine(LockIdentity identity, int i) {
		return new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED).time(Instant.now(), Instant.now())
			.identity(identity)
			.ids("req-" + i, "corr-" + i)
			.principal(PrincipalClass.WORKER, "worker-1", "key-1", "instance-1")
			.lease("lease-1", 42L)
			.build();
	}

	private static AuditEvent revoke(LockIdentity identity) {
		return new AuditEventBuilder(AuditEventType.REVOKE, ResultCode.LEASE_REVOKED).time(Instant.now(), Instant.now())
			.identity(identity)
			.ids("req-admin", "corr-admin")
			.principal(PrincipalClass.ADMINISTRATOR, "admin-1", "key-a", "instance-1")
			.lease("lease-1", 42L)
			.build();
	}

	private static void assertOnlyOn(int port, String key) {
		int slot = SlotHash.getSlot(key);
		for (int other : cluster.ports()) {
			if (other != port) {
				assertThat(cluster.node(other).clusterCountKeysInSlot(slot)).as("slot %d keys on node %d", slot, other)
					.isZero();
			}
		}
	}

	/** {@code CLIENT PAUSE ...} or {@code CLIENT UNPAUSE} on one node. */
	private static void pause(int port, String... arguments) {
		CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
		for (String argument : arguments) {
			args.add(argument);
		}
		cluster.node(port).dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), args);
	}

	/** Connections the cluster's nodes have accepted so far, summed. */
	private static long connectionsReceived() {
		long received = 0;
		for (int port : cluster.ports()) {
			String stats = cluster.node(port).info("stats");
			for (String line : stats.split("\r?\n")) {
				if (line.startsWith("total_connections_received:")) {
					received += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		return received;
	}

}
