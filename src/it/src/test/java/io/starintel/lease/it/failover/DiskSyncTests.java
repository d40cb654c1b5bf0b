package io.starintel.lease.it.failover;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.Range;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;
import io.starintel.lease.test.RedisServerProcess;
import org.junit.jupiter.api.Test;

import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code starintel.lease.redis.replica-acknowledgement.disk-sync}: the store's changes and the durable audit sink's
 * entries are confirmed only once the primary has written them to its append-only file as well
 * ({@code WAITAOF 1 n timeout} on the same connection), on a server of its own with {@code appendonly yes}; on a server
 * without an append-only file nothing is confirmed (the server refuses the wait: a change is
 * {@code lease_outcome_unknown}, an entry {@link AuditWriteException}), never reported durable; nor on a server
 * without {@code WAITAOF} (Redis before 7.2: Debian 12 packages 7.0, so on this machine the Redis variant checks that,
 * and the Valkey one the confirmed path).
 */
class DiskSyncTests {

	private static final ReplicaAcknowledgement DISK_SYNC = ReplicaAcknowledgement.allReplicas().withDiskSync();

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	@Test
	void withAnAppendOnlyFileChangesAndAuditEntriesAreConfirmedAfterItsWrite() throws Exception {
		try (RedisServerProcess server = start("--appendonly", "yes", "--appendfsync", "everysec");
				NodeAdmin admin = new NodeAdmin();
				FailoverClients.Client client = FailoverClients.standalone(server.port());
				RedisLeaseStore store = store(client);
				RedisStreamAuditSink sink = sink(client)) {
			LockIdentity identity = FailoverRequests.identity(FailoverRequests.newProgram(), "target-1");
			if (admin.on(server.port(), (node) -> node.commandInfo("WAITAOF")).stream().allMatch((info) -> info == null)) {
				// Redis before 7.2 (Debian 12 packages 7.0) has no WAITAOF: there nothing is confirmed either
				assertNothingConfirmed(store, sink, identity);
				return;
			}
			LeaseResult acquired = store.acquire(
					FailoverRequests.acquire(identity, "owner-a", Duration.ofSeconds(30), Duration.ofSeconds(5)));
			assertThat(acquired.code()).as(acquired.toString()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			assertThat(store.release(FailoverRequests.release(acquired.lease(), Duration.ofSeconds(5))).code())
				.isEqualTo(ResultCode.LEASE_RELEASED);
			long afterStore = waitAofCalls(admin, server.port());
			assertThat(afterStore).as("a WAITAOF behind each change").isGreaterThanOrEqualTo(2);

			List<String> confirmed = StreamAuditEvents.recordBatch(sink, List.of(identity), 0, 5);
			assertThat(waitAofCalls(admin, server.port())).as("one WAITAOF behind the batch").isEqualTo(afterStore + 1);
			assertThat(StreamAuditEvents.requestIds(admin.on(server.port(),
					(node) -> node.xrange(RedisStreamAuditSink.routineStreamKey(identity.scope()), Range.create("-", "+")))))
				.containsExactlyElementsOf(confirmed);
		}
	}

	@Test
	void withoutAnAppendOnlyFileNothingIsConfirmed() throws Exception {
		try (RedisServerProcess server = start("--appendonly", "no");
				FailoverClients.Client client = FailoverClients.standalone(server.port());
				RedisLeaseStore store = store(client);
				RedisStreamAuditSink sink = sink(client)) {
			assertNothingConfirmed(store, sink, FailoverRequests.identity(FailoverRequests.newProgram(), "target-1"));
		}
	}

	/**
	 * Two changes, neither confirmed, and one WARN that says why (once per node); an audit batch that fails.
	 */
	private static void assertNothingConfirmed(RedisLeaseStore store, RedisStreamAuditSink sink, LockIdentity identity) {
		Logger logger = (Logger) LoggerFactory.getLogger("io.starintel.lease.store.redis.internal.ScriptExecutor");
		ListAppender<ILoggingEvent> log = new ListAppender<>();
		log.start();
		logger.addAppender(log);
		try {
			for (String target : List.of("target-1", "target-2")) {
				LeaseResult result = store.acquire(FailoverRequests.acquire(
						LockIdentity.of(identity.tenantId(), identity.programId(), identity.targetNamespace(), target,
								identity.actorName(), identity.workflowName(), null),
						"owner-a", Duration.ofSeconds(30), Duration.ofSeconds(5)));
				assertThat(result.code()).as(result.toString()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
				assertThat(result.reason()).isEqualTo(Reason.REPLICAS_NOT_ACKNOWLEDGED);
			}
		}
		finally {
			logger.detachAppender(log);
		}
		assertThat(log.list).filteredOn((event) -> event.getLevel() == Level.WARN)
			.extracting(ILoggingEvent::getFormattedMessage)
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains("refuses the replica wait", "disk-sync", "appendonly yes");
		assertThatExceptionOfType(AuditWriteException.class)
			.isThrownBy(() -> StreamAuditEvents.recordBatch(sink, List.of(identity), 0, 5));
	}

	private RedisServerProcess start(String... arguments) throws Exception {
		Path directory = Files.createTempDirectory("disk-sync");
		String[] all = new String[arguments.length + 2];
		System.arraycopy(arguments, 0, all, 0, arguments.length);
		all[arguments.length] = "--save";
		all[arguments.length + 1] = "";
		return RedisServerProcess.start(this.kind.requireServerBinary(), RedisServerProcess.freePort(), directory, all);
	}

	private static RedisLeaseStore store(FailoverClients.Client client) {
		return RedisLeaseStore.builder(client.factory())
			.policy(FailoverStores.POLICY)
			.replicaAcknowledgement(DISK_SYNC)
			.build();
	}

	/** As the admin auto-configuration builds it with {@code disk-sync=true}. */
	private static RedisStreamAuditSink sink(FailoverClients.Client client) {
		return new RedisStreamAuditSink(new StringRedisTemplate(client.factory()), 100_000,
				RedisStreamAuditSink.ADMIN_STREAM_LENGTH,
				RedisStreamAuditSink.ReplicaRequirement.of(DISK_SYNC::required, DISK_SYNC.diskSync()));
	}

	/** {@code calls} of {@code cmdstat_waitaof} in the server's {@code INFO commandstats}. */
	private static long waitAofCalls(NodeAdmin admin, int port) {
		return NodeAdmin.field(admin.info(port, "commandstats"), "cmdstat_waitaof")
			.map((stats) -> Long.parseLong(stats.replaceAll("^calls=(\\d+).*", "$1")))
			.orElse(0L);
	}

}
