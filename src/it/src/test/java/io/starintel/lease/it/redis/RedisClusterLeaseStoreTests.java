package io.starintel.lease.it.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.FlushMode;
import io.lettuce.core.cluster.SlotHash;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.internal.LeaseLibrary;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis store on a real 3-node Redis Cluster (a Valkey Cluster in {@link ValkeyClusterLeaseStoreTests}) that
 * this class starts on loopback ({@link LocalRedisCluster}):
 * every operation returns its typed success result on every node (each script's keys share one hash tag, so no
 * CROSSSLOT, and Lettuce routes by that slot, so no MOVED surfaces), leases of different programs are really stored
 * on different nodes, and the function library is loaded again after {@code FUNCTION FLUSH} on every node.
 *
 * <p>Besides the typed results, the store's script executor must not log a single failed script call (a MOVED,
 * ASK or CROSSSLOT error would be logged there before it became an outcome).
 */
class RedisClusterLeaseStoreTests {

	private static final String TENANT = "tenant-cluster";

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static LocalRedisCluster cluster;

	private static LettuceConnectionFactory factory;

	private static RedisLeaseStore store;

	private static int programs;

	private final ListAppender<ILoggingEvent> scriptLog = new ListAppender<>();

	@BeforeAll
	static void startCluster(TestInfo testInfo) {
		cluster = LocalRedisCluster.start(RedisServerKind.of(testInfo));
		factory = cluster.connectionFactory(
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		store = RedisServers.store(factory);
	}

	/**
	 * Fresh programs, one per node: node client port → a new program whose hash slot that node serves (every key of
	 * a program shares its slot), so each test works in programs of its own.
	 */
	private static Map<Integer, String> programByNode() {
		Map<Integer, String> programByNode = new LinkedHashMap<>();
		for (int i = 0; i < 500 && programByNode.size() < LocalRedisCluster.NODES; i++) {
			String program = newProgram();
			programByNode.putIfAbsent(ownerOf(leaseKey(identity(program, "t1"))), program);
		}
		assertThat(programByNode).as("a program per node").hasSize(LocalRedisCluster.NODES);
		return programByNode;
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

	@BeforeEach
	void watchScriptFailures() {
		this.scriptLog.start();
		scriptLogger().addAppender(this.scriptLog);
	}

	@AfterEach
	void noScriptFailureWasLogged() {
		scriptLogger().detachAppender(this.scriptLog);
		assertThat(this.scriptLog.list).filteredOn((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
			.extracting(ILoggingEvent::getFormattedMessage)
			.isEmpty();
	}

	@Test
	void everyHolderAndAdminOperationSucceedsOnEveryNode() {
		programByNode().forEach((port, program) -> {
			LockIdentity identity = identity(program, "t1");
			AcquireRequest acquire = acquireRequest(identity, "alice");
			LeaseResult acquired = store.acquire(acquire);
			assertThat(acquired.code()).as("acquire on node %d", port).isEqualTo(ResultCode.LEASE_ACQUIRED);
			LeaseRecord lease = acquired.lease();
			assertThat(lease.fencingToken()).isPositive();
			assertStoredOnlyOn(port, leaseKey(identity));

			assertThat(store.acquire(acquireRequest(identity, "bob")).code()).as("conflict on node %d", port)
				.isEqualTo(ResultCode.LEASE_CONFLICT);
			LeaseResult renewed = store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
					deadline()));
			assertThat(renewed.code()).as("renew on node %d", port).isEqualTo(ResultCode.LEASE_RENEWED);
			assertThat(renewed.lease().fencingToken()).isEqualTo(lease.fencingToken());

			LeaseResult byIdentity = store.inspect(InspectRequest.byIdentity(identity, "corr_1", deadline()));
			assertThat(byIdentity.code()).as("inspect by identity on node %d", port)
				.isEqualTo(ResultCode.LEASE_INSPECTED);
			assertThat(byIdentity.lease().leaseId()).isEqualTo(lease.leaseId());
			LeaseResult byLeaseId = store
				.inspect(InspectRequest.byLeaseId(identity.scope(), lease.leaseId(), "corr_2", deadline()));
			assertThat(byLeaseId.code()).as("inspect by lease id on node %d", port)
				.isEqualTo(ResultCode.LEASE_INSPECTED);
			assertThat(byLeaseId.lease().leaseId()).isEqualTo(lease.leaseId());

			assertThat(store.authorizeCommit(new CommitRequest(lease.handle(), "corr_3", deadline())).code())
				.as("authorize commit on node %d", port)
				.isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
			LeaseResult resolved = store.resolve(ResolveRequest.of(acquire, deadline()));
			assertThat(resolved.code()).as("resolve on node %d", port).isEqualTo(ResultCode.LEASE_ACQUIRED);
			assertThat(resolved.replayed()).isTrue();
			assertThat(resolved.lease().leaseId()).isEqualTo(lease.leaseId());

			assertThat(store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"), deadline()))
				.code()).as("release on node %d", port).isEqualTo(ResultCode.LEASE_RELEASED);

			LeaseRecord second = acquired(identity, "bob");
			assertThat(second.fencingToken()).isGreaterThan(lease.fencingToken());
			assertThat(store.forceRelease(admin(Operation.FORCE_RELEASE, second)).code())
				.as("force-release on node %d", port)
				.isEqualTo(ResultCode.LEASE_RELEASED);

			LeaseRecord third = acquired(identity, "carol");
			assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
			assertThat(store.revoke(admin(Operation.REVOKE, third)).code()).as("revoke on node %d", port)
				.isEqualTo(ResultCode.LEASE_REVOKED);
			assertThat(store.inspect(InspectRequest.byIdentity(identity, "corr_4", deadline())).code())
				.isEqualTo(ResultCode.LEASE_NOT_FOUND);
		});
	}

	@Test
	void attachedKeysWorkOnEveryNodeAndGoWithTheLease() {
		programByNode().forEach((port, program) -> {
			LockIdentity identity = identity(program, "t1");
			LeaseRecord lease = acquired(identity, "alice");
			ProgramScope scope = identity.scope();
			for (String name : List.of("progress", "claim")) {
				assertThat(store.putAttached(new AttachPutRequest(lease.handle(), name, "v-" + name,
						Identifiers.generate("request"), deadline())).code()).as("put on node %d", port)
					.isEqualTo(ResultCode.ATTACHMENT_STORED);
			}
			assertStoredOnlyOn(port, new RedisKeys(scope).attachedKey("progress"));
			AttachmentResult read = store.getAttached(new AttachGetRequest(scope, "progress", "corr_1", deadline()));
			assertThat(read.code()).as("get on node %d", port).isEqualTo(ResultCode.ATTACHMENT_READ);
			assertThat(read.value()).isEqualTo("v-progress");
			assertThat(store.listAttached(new AttachListRequest(scope, lease.leaseId(), "corr_2", deadline())).names())
				.as("list on node %d", port).containsExactly("claim", "progress");
			assertThat(store.deleteAttached(new AttachDeleteRequest(lease.handle(), "claim",
					Identifiers.generate("request"), deadline())).code()).as("delete on node %d", port)
				.isEqualTo(ResultCode.ATTACHMENT_DELETED);
			assertThat(store.revoke(admin(Operation.REVOKE, lease)).code()).isEqualTo(ResultCode.LEASE_REVOKED);
			assertThat(store.getAttached(new AttachGetRequest(scope, "progress", "corr_3", deadline())).code())
				.as("get after revoke on node %d", port).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(cluster.node(port).exists(new RedisKeys(scope).attachedKey("progress"))).isZero();
		});
	}

	@Test
	void listByProgramOwnerAndTargetPagesOnEveryNode() {
		programByNode().forEach((port, program) -> {
			for (int i = 0; i < 7; i++) {
				acquired(identity(program, "list-" + i), (i % 2 == 0) ? "alice" : "bob");
			}
			ProgramScope scope = ProgramScope.of(TENANT, program);
			List<String> seen = new ArrayList<>();
			String cursor = null;
			int pages = 0;
			do {
				LeasePage page = store
					.list(new ListRequest(new ListFilter.ByProgram(scope), cursor, 3, "corr_list", deadline()));
				assertThat(page.code()).as("list by program on node %d", port).isEqualTo(ResultCode.LEASE_LISTED);
				assertThat(page.leases()).hasSizeLessThanOrEqualTo(3);
				page.leases().forEach((lease) -> seen.add(lease.lockKey()));
				cursor = page.nextCursor();
				pages++;
			}
			while (cursor != null && pages < 10);
			assertThat(pages).isGreaterThanOrEqualTo(3);
			assertThat(seen).hasSize(7).doesNotHaveDuplicates().isSorted();

			LeasePage byOwner = store
				.list(new ListRequest(new ListFilter.ByOwner(scope, "alice"), null, 100, "corr_list", deadline()));
			assertThat(byOwner.code()).as("list by owner on node %d", port).isEqualTo(ResultCode.LEASE_LISTED);
			assertThat(byOwner.leases()).hasSize(4)
				.allSatisfy((lease) -> assertThat(lease.owner().principalId()).isEqualTo("alice"));

			LeasePage byTarget = store.list(new ListRequest(
					new ListFilter.ByTarget(scope, "starintel-target", "list-3"), null, 100, "corr_list", deadline()));
			assertThat(byTarget.code()).as("list by target on node %d", port).isEqualTo(ResultCode.LEASE_LISTED);
			assertThat(byTarget.leases()).singleElement()
				.satisfies((lease) -> assertThat(lease.identity()).isEqualTo(identity(program, "list-3")));
		});
	}

	@Test
	void leasesOfDifferentProgramsLandOnDifferentNodes() {
		Set<Integer> nodesHoldingLeases = new TreeSet<>();
		try (RedisClusterConnection connection = factory.getClusterConnection()) {
			for (int i = 0; i < 12; i++) {
				LockIdentity identity = identity(newProgram(), "spread");
				acquired(identity, "alice");
				String key = leaseKey(identity);
				int slot = SlotHash.getSlot(key);
				int owner = ownerOf(key);
				// the client's routing table agrees with the server's slot map
				assertThat(connection.clusterGetNodeForKey(key.getBytes(StandardCharsets.UTF_8)).getPort())
					.isEqualTo(owner);
				assertThat(connection.clusterGetSlotForKey(key.getBytes(StandardCharsets.UTF_8))).isEqualTo(slot);
				assertStoredOnlyOn(owner, key);
				nodesHoldingLeases.add(owner);
			}
		}
		assertThat(nodesHoldingLeases).as("nodes that hold leases").hasSizeGreaterThanOrEqualTo(2);
		// with the per-node programs found at start-up, leases are on all three nodes
		programByNode().forEach((port, program) -> {
			LockIdentity identity = identity(program, "spread");
			acquired(identity, "alice");
			assertStoredOnlyOn(port, leaseKey(identity));
		});
	}

	@Test
	void functionFlushOnEveryNodeReloadsTheLibraryOnce() {
		Map<Integer, String> programByNode = programByNode();
		programByNode.forEach((port, program) -> acquired(identity(program, "warm"), "alice"));
		for (int port : cluster.ports()) {
			// every node ran an acquire above, so it has the library
			assertThat(hasLibrary(port)).as("library on node %d", port).isTrue();
			cluster.node(port).functionFlush(FlushMode.SYNC);
			assertThat(hasLibrary(port)).isFalse();
		}
		programByNode.forEach((port, program) -> {
			LeaseRecord lease = acquired(identity(program, "after-flush"), "alice");
			assertThat(store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"), deadline()))
				.code()).as("release after FUNCTION FLUSH on node %d", port).isEqualTo(ResultCode.LEASE_RELEASED);
			// the "Function not found" fallback loaded the library again on the node that ran it
			assertThat(hasLibrary(port)).isTrue();
		});
	}

	private static boolean hasLibrary(int port) {
		return !cluster.node(port).functionList(LeaseLibrary.NAME).isEmpty();
	}

	private static LeaseRecord acquired(LockIdentity identity, String owner) {
		LeaseResult result = store.acquire(acquireRequest(identity, owner));
		assertThat(result.code()).as("acquire %s", identity).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	/** The key exists on the node that serves its slot, and no other node holds any key of that slot. */
	private static void assertStoredOnlyOn(int port, String key) {
		int slot = SlotHash.getSlot(key);
		assertThat(cluster.node(port).clusterKeyslot(key)).isEqualTo(slot);
		assertThat(cluster.node(port).exists(key)).as("%s exists on node %d", key, port).isEqualTo(1L);
		for (int other : cluster.ports()) {
			if (other != port) {
				assertThat(cluster.node(other).clusterCountKeysInSlot(slot)).as("slot %d keys on node %d", slot, other)
					.isZero();
			}
		}
	}

	private static int ownerOf(String key) {
		return cluster.ownerOfSlot(SlotHash.getSlot(key));
	}

	private static String leaseKey(LockIdentity identity) {
		return RedisKeys.of(identity).lease(identity.keyDigest());
	}

	private static String newProgram() {
		return "pc-" + RUN + "-" + (programs++);
	}

	private static LockIdentity identity(String program, String target) {
		return LockIdentity.of(TENANT, program, "starintel-target", target, "usernamegen", "default", null);
	}

	private static Instant deadline() {
		return Instant.now().plusSeconds(30);
	}

	private static AcquireRequest acquireRequest(LockIdentity identity, String owner) {
		return new AcquireRequest(identity, Identifiers.generate("request"), deadline(),
				new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), 60_000, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty());
	}

	private static AdminRequest admin(Operation operation, LeaseRecord lease) {
		return new AdminRequest(operation, lease.identity(), Identifiers.generate("request"), deadline(),
				lease.leaseId(), lease.fencingToken(), "prn_admin", "key_admin", "incident-42");
	}

	private static Logger scriptLogger() {
		return (Logger) LoggerFactory.getLogger("io.starintel.lease.store.redis.internal.ScriptExecutor");
	}

}
