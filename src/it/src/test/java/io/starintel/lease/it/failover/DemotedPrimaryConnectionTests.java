package io.starintel.lease.it.failover;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.Range;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;

import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.RecoveryReport;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.ReplicaAcknowledgement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A store whose connections stay open on a primary that is demoted to a replica (found by an outside probe: after
 * the sentinels and both nodes restarted together, Lettuce could not ask the sentinels and reconnected to the address
 * it had cached, a replica by then; every acquire failed {@code replicas_unavailable} and the recovery of all nodes
 * counted the replica as a scanned primary, until an operator killed the clients). Here the roles of a
 * {@link ReplicatedRedis} are swapped by hand ({@code REPLICAOF NO ONE} on the replica, {@code REPLICAOF} on the
 * former primary, no {@code CLIENT KILL}) and the one {@link LocalSentinel} is pointed at the new primary
 * ({@link LocalSentinel#monitor}): the store's connections stay on the demoted node, and a new connection of its
 * Sentinel-configured factory reaches the new primary. The call that finds a connection on the replica is
 * {@code lease_backend_unavailable}/{@code not_primary} (nothing ran), the store's connections there are retired, and
 * the next call reaches the new primary; a recovery scan of the replica is not complete.
 */
class DemotedPrimaryConnectionTests {

	private static final Duration TTL = Duration.ofSeconds(60);

	private static final Duration DEADLINE = Duration.ofSeconds(5);

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	/**
	 * Swaps the roles (the replica promoted, the former primary its replica, clients left connected) and makes the
	 * sentinel report the new primary; returns the demoted node's port.
	 */
	private static int demotePrimaryLeavingClientsConnected(ReplicatedRedis redis, LocalSentinel sentinel) {
		int former = redis.primaryPort();
		redis.promoteReplica();
		sentinel.monitor(redis.primaryPort());
		demoteLeavingClientsConnected(redis, former);
		return former;
	}

	/**
	 * {@code REPLICAOF} the current primary on the node {@code former}, directly (a replica behind a proxy is
	 * re-pointed by Sentinel, which disconnects its clients), once no client is blocked there: a node turning replica
	 * disconnects the clients blocked in a command ({@code -UNBLOCKED}), such as a store connection still in a
	 * {@code WAIT} that its call gave up on, and Lettuce would reconnect that one through the sentinel (seen on Valkey).
	 */
	private static void demoteLeavingClientsConnected(ReplicatedRedis redis, int former) {
		await("no client blocked on " + former).atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> redis.info(former, "clients").contains("blocked_clients:0"));
		redis.linkDirectly(former);
		assertThat(redis.isPrimary(former)).as("the former primary is a replica now").isFalse();
	}

	/**
	 * The first acquire after the demotion finds its connection on the replica: {@code not_primary}, nothing ran; the
	 * next one reaches the new primary on a new connection.
	 */
	private static void assertNotPrimaryThenServed(RedisLeaseStore store, LockIdentity identity, int former,
			int promoted) {
		LeaseResult found = store.acquire(FailoverRequests.acquire(identity, "carol", TTL, DEADLINE));
		LeaseResult next = store.acquire(FailoverRequests.acquire(identity, "carol", TTL, DEADLINE));
		SoftAssertions soft = new SoftAssertions();
		soft.assertThat(found.code()).as("the call that finds its connection on %d (%s)", former, found.reason())
			.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		soft.assertThat(found.reason()).as("an honest, retryable reason").isEqualTo(Reason.NOT_PRIMARY);
		soft.assertThat(next.code()).as("the next call, on a new connection to %d (%s)", promoted, next.reason())
			.isEqualTo(ResultCode.LEASE_ACQUIRED);
		soft.assertAll();
	}

	private static RecoveryReport recoverAllNodes(RedisLeaseStore store) {
		return store.recoverPromotedPrograms(null, FailoverRequests.ADMIN, "key_operator", "demotion drill",
				Instant.now().plus(DEADLINE));
	}

	@Test
	void anAcquireOnAConnectionLeftOnADemotedPrimaryIsNotPrimaryAndTheNextCallReachesTheNewPrimary() {
		String program = FailoverRequests.newProgram();
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 1);
				FailoverClients.Client client = sentinel.client()) {
			RedisLeaseStore store = FailoverStores.store(client.factory());
			LeaseResult first = store.acquire(FailoverRequests.acquire(FailoverRequests.identity(program, "a"), "alice",
					TTL, DEADLINE));
			assertThat(first.code()).as("before the demotion (%s)", first.reason()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			// two calls waiting for the paused replica at once hold two connections: the store has more than one open
			// on the node that is demoted next (the probe's apps had two each)
			redis.pauseLink();
			List<CompletableFuture<LeaseResult>> waiting = List.of("b1", "b2")
				.stream()
				.map((target) -> CompletableFuture.supplyAsync(() -> store.acquire(FailoverRequests.acquire(
						FailoverRequests.identity(program, target), "bob", TTL, Duration.ofSeconds(1)))))
				.toList();
			waiting.forEach(CompletableFuture::join);
			redis.resumeLink();
			assertThat(redis.waitForReplicas(1, DEADLINE)).isEqualTo(1);
			int former = demotePrimaryLeavingClientsConnected(redis, sentinel);

			assertNotPrimaryThenServed(store, FailoverRequests.identity(program, "c"), former, redis.primaryPort());
			store.close();
		}
	}

	/**
	 * The probe's case: the store learned from its primary that it has no replica online (every change refused
	 * {@code replicas_unavailable}, rightly), then the primary is demoted under its connections. A replica reports no
	 * replica either: without a look at the role every call stayed {@code replicas_unavailable} on the replica.
	 */
	@Test
	void aPrimaryWithoutReplicasDemotedUnderTheStoreIsNotPrimaryNotReplicasUnavailable() {
		String program = FailoverRequests.newProgram();
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 1);
				FailoverClients.Client client = sentinel.client()) {
			RedisLeaseStore store = FailoverStores.store(client.factory());
			LeaseResult first = store.acquire(FailoverRequests.acquire(FailoverRequests.identity(program, "a"), "alice",
					TTL, DEADLINE));
			assertThat(first.code()).as("before the demotion (%s)", first.reason()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			int former = redis.primaryPort();
			redis.promoteReplica(); // the former primary has no replica left: changes wait for one (Sentinel)
			LockIdentity b = FailoverRequests.identity(program, "b");
			await("the store refuses changes for want of a replica").atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> store.acquire(FailoverRequests.acquire(b, "bob", TTL, Duration.ofMillis(500)))
					.reason() == Reason.REPLICAS_UNAVAILABLE);
			sentinel.monitor(redis.primaryPort());
			demoteLeavingClientsConnected(redis, former);

			assertNotPrimaryThenServed(store, FailoverRequests.identity(program, "c"), former, redis.primaryPort());
			store.close();
		}
	}

	@Test
	void aReadOnAConnectionLeftOnADemotedPrimaryIsNotPrimaryAndTheNextReadIsServed() {
		String program = FailoverRequests.newProgram();
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 1);
				FailoverClients.Client client = sentinel.client()) {
			RedisLeaseStore store = FailoverStores.store(client.factory());
			ListRequest list = new ListRequest(new ListFilter.ByProgram(
					FailoverRequests.identity(program, "a").scope()), null, 10, "c", FailoverRequests.in(DEADLINE));
			assertThat(store.list(list).code()).as("before the demotion").isEqualTo(ResultCode.LEASE_LISTED);
			demotePrimaryLeavingClientsConnected(redis, sentinel);

			LeasePage found = store.list(new ListRequest(list.filter(), null, 10, "c", FailoverRequests.in(DEADLINE)));
			LeasePage next = store.list(new ListRequest(list.filter(), null, 10, "c", FailoverRequests.in(DEADLINE)));
			SoftAssertions soft = new SoftAssertions();
			soft.assertThat(found.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
			soft.assertThat(found.reason()).isEqualTo(Reason.NOT_PRIMARY);
			soft.assertThat(next.code()).as("the next read (%s)", next.reason()).isEqualTo(ResultCode.LEASE_LISTED);
			soft.assertAll();
			store.close();
		}
	}

	@Test
	void aRecoveryOfAllNodesThatReachesOnlyAReplicaIsNotComplete() {
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 1);
				FailoverClients.Client client = sentinel.client()) {
			RedisLeaseStore store = FailoverStores.store(client.factory());
			RecoveryReport before = recoverAllNodes(store);
			assertThat(before.complete()).as(before.toString()).isTrue();
			assertThat(before.nodes()).as(before.toString()).isEqualTo(1);
			demotePrimaryLeavingClientsConnected(redis, sentinel);

			RecoveryReport onReplica = recoverAllNodes(store);
			assertThat(onReplica.nodes()).as("a replica is no scanned primary: " + onReplica).isZero();
			assertThat(onReplica.complete()).as(onReplica.toString()).isFalse();
			RecoveryReport again = recoverAllNodes(store);
			assertThat(again.complete()).as("again, on a new connection to the new primary: " + again).isTrue();
			assertThat(again.nodes()).as(again.toString()).isEqualTo(1);
			store.close();
		}
	}

	/**
	 * The durable audit sink's own connection left on the demoted primary (the same probe's case, for the audit
	 * stream): with the store's replica rule the node reports no replica (every write refused), without one every
	 * {@code XADD} is refused {@code READONLY}; either way the connection stayed there and no event reached the stream
	 * again. The write that finds it on the replica fails (the audit pipeline sends it again), the connection is
	 * retired, and the next write reaches the new primary.
	 */
	@ParameterizedTest(name = "replica rule: {0}")
	@ValueSource(booleans = { true, false })
	void anAuditSinkConnectionLeftOnADemotedPrimaryIsRetiredAndTheNextWriteReachesTheNewPrimary(boolean replicaRule) {
		LockIdentity identity = FailoverRequests.identity(FailoverRequests.newProgram(), "audited");
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 1);
				FailoverClients.Client client = sentinel.client();
				RedisStreamAuditSink sink = new RedisStreamAuditSink(new StringRedisTemplate(client.factory()), 100_000,
						RedisStreamAuditSink.ADMIN_STREAM_LENGTH,
						replicaRule ? ReplicaAcknowledgement.allReplicas()::required : null)) {
			List<String> before = StreamAuditEvents.recordBatch(sink, List.of(identity), 0, 3);
			assertThat(redis.waitForReplicas(1, DEADLINE)).isEqualTo(1);
			demotePrimaryLeavingClientsConnected(redis, sentinel);

			assertThatExceptionOfType(AuditWriteException.class).as("the write that finds its connection on the replica")
				.isThrownBy(() -> StreamAuditEvents.recordBatch(sink, List.of(identity), 1, 3))
				.withMessageContaining("replica");
			List<String> after = StreamAuditEvents.recordBatch(sink, List.of(identity), 2, 3);
			String stream = RedisStreamAuditSink.routineStreamKey(identity.scope());
			assertThat(StreamAuditEvents.requestIds(redis.on(redis.primaryPort(),
					(node) -> node.xrange(stream, Range.create("-", "+")))))
				.as("on the new primary")
				.containsSubsequence(before)
				.containsAll(after);
		}
	}

}
