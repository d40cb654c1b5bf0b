package io.starintel.lease.it.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.starintel.lease.service.LeaseService;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.sweep.ExpirySweeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The expiry sweeper against a real Redis (and Valkey in {@link ValkeyExpirySweeperTests}): three sweepers (three
 * stores on three connection factories, three audited paths, three scheduler threads) over the same expiring leases
 * produce exactly one {@code expired} evidence and one {@code target_lease_expire} event per lease; a swept lease ends
 * promptly after its {@code expires_at}.
 */
class RedisExpirySweeperTests {

	private static final Duration INTERVAL = Duration.ofMillis(100);

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<ExpirySweeper> sweepers = new ArrayList<>();

	private final List<AuditEvent> events = new CopyOnWriteArrayList<>();

	private final AtomicInteger ticks = new AtomicInteger();

	private RedisServerKind kind;

	private StringRedisTemplate redis;

	private String program;

	@BeforeEach
	void connect(TestInfo testInfo) {
		this.kind = RedisServerKind.of(testInfo);
		this.redis = new StringRedisTemplate(factory());
		this.program = "sweep-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void close() {
		this.sweepers.forEach(ExpirySweeper::close);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	private LettuceConnectionFactory factory() {
		LettuceConnectionFactory factory = RedisServers.factory(this.kind);
		this.factories.add(factory);
		return factory;
	}

	private ProgramScope scope() {
		return ProgramScope.of("tenant-sweep", this.program);
	}

	private ExpirySweeper startSweeper() {
		RedisLeaseStore store = new RedisLeaseStore(factory(), RedisServers.POLICY, LeaseAlerts.LOG);
		AuditingLeaseStore audited = new AuditingLeaseStore(store, List.of(this.events::add), Clock.systemUTC(),
				store.writesAdminAuditAtomically());
		ExpirySweeper sweeper = ExpirySweeper
			.builder(new LeaseService(audited, Clock.systemUTC(), Duration.ofSeconds(5), null, null))
			.programs(List.of(scope()))
			.interval(INTERVAL)
			.maxBatchesPerTick(20)
			.observer((s, tick) -> this.ticks.incrementAndGet())
			.build();
		this.sweepers.add(sweeper);
		sweeper.start();
		return sweeper;
	}

	private List<LeaseRecord> acquire(RedisLeaseStore store, int count, long ttlMs) {
		List<LeaseRecord> leases = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			LockIdentity identity = LockIdentity.of("tenant-sweep", this.program, "starintel-target", "t-" + i,
					"usernamegen", "default", null);
			LeaseResult result = store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
					Instant.now().plusSeconds(30), new LeaseOwner("alice", "c", "k", "instance-1"), ttlMs, 300_000,
					"e", "j", "t", LeaseMetadata.empty()));
			assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			leases.add(result.lease());
		}
		return leases;
	}

	private List<AuditEvent> expiries() {
		return this.events.stream().filter((e) -> e.eventType() == AuditEventType.EXPIRE).toList();
	}

	@Test
	void threeSweepersAtOnceGiveExactlyOneExpiredEvidenceAndOneAuditEventPerLease() {
		RedisLeaseStore store = new RedisLeaseStore(factory(), RedisServers.POLICY, LeaseAlerts.LOG);
		List<LeaseRecord> leases = acquire(store, 300, 1_500);
		startSweeper();
		startSweeper();
		startSweeper();
		await().atMost(Duration.ofSeconds(60)).until(() -> expiries().size() >= leases.size());
		// let every sweeper tick a few more times over the (now empty) queue: nothing may be reported twice
		int seen = this.ticks.get();
		await().atMost(Duration.ofSeconds(30)).until(() -> this.ticks.get() >= seen + 9);
		List<AuditEvent> expiries = expiries();
		assertThat(expiries).hasSize(leases.size());
		assertThat(expiries).extracting(AuditEvent::leaseId)
			.doesNotHaveDuplicates()
			.containsExactlyInAnyOrderElementsOf(leases.stream().map(LeaseRecord::leaseId).toList());
		RedisKeys keys = new RedisKeys(scope());
		Map<String, Integer> evidence = new HashMap<>();
		for (LeaseRecord lease : leases) {
			// the terminal entries of the identity's history ring (storage v3: t0..t15 of its hash)
			Map<Object, Object> hash = this.redis.opsForHash().entries(keys.identity(lease.identity().keyDigest()));
			hash.forEach((field, value) -> {
				if (field.toString().matches("t\\d+") && value.toString().startsWith(lease.leaseId() + "\u001f")) {
					assertThat(value.toString().split("\u001f")[2]).isEqualTo("expired");
					evidence.merge(lease.leaseId(), 1, Integer::sum);
				}
			});
			// the lease's state where its id resolves: byte 2 of its acquire's result ('x': expired)
			assertThat(this.redis.opsForValue().get(keys.leaseResolution(lease.leaseId()))).startsWith("3x\u001f");
		}
		assertThat(evidence).hasSize(leases.size()).allSatisfy((id, count) -> assertThat(count).isEqualTo(1));
		assertThat(this.redis.opsForZSet().zCard(keys.expiryQueue())).isZero();
		assertThat(this.redis.opsForList().size(keys.base() + "expired")).isZero();
	}

	@Test
	void aLeaseIsSweptPromptlyAfterItsExpiry() {
		RedisLeaseStore store = new RedisLeaseStore(factory(), RedisServers.POLICY, LeaseAlerts.LOG);
		startSweeper();
		List<LeaseRecord> leases = acquire(store, 20, 1_000);
		await().atMost(Duration.ofSeconds(30)).until(() -> expiries().size() >= leases.size());
		Map<String, Instant> expiresAt = new HashMap<>();
		leases.forEach((lease) -> expiresAt.put(lease.leaseId(), lease.expiresAt()));
		for (AuditEvent event : expiries()) {
			long lateMs = Duration.between(expiresAt.get(event.leaseId()), event.backendTime()).toMillis();
			// swept no earlier than expires_at and within 10x the 100 ms interval after it
			assertThat(lateMs).isBetween(0L, INTERVAL.toMillis() * 10);
		}
	}

}
