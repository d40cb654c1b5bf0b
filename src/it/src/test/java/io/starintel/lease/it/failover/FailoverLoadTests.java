package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.it.redis.RedisServerKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failover load harness of issue 36: {@value #WORKERS} worker JVMs ({@link FailoverLoadWorker}, {@value #THREADS}
 * holder threads each, plus an admin that revokes) run acquire, commit authorization, renew, release over shared
 * targets while the test makes replicas lag and fails the primaries over; then a sample of the mutations
 * acknowledged around each fault is resolved, and {@link FailoverHistoryChecker} checks the whole history: no
 * overlapping authorized commits, tokens never backwards, no success after an acknowledged end or after expiry, no
 * acknowledged change lost. The report (faults, answers by code, violations) is printed and written to
 * {@code target/failover-load/<kind>-<topology>/report.txt}.
 *
 * <ul>
 * <li>Sentinel ({@link ReplicatedRedis} + one {@link LocalSentinel}, failover timeout 5 s): the replica's link is
 * paused or delayed, then the primary is killed -9 (automatic promotion; Sentinel allows one 2 × 5 s after the
 * previous failover), a {@code SENTINEL FAILOVER} follows each kill (the former primary demoted at once), other
 * cycles only lag; the killed node comes back empty as a replica.</li>
 * <li>Cluster ({@link ReplicatedCluster}, 3 + 3, one program per shard): the replica of the next shard is cut off or
 * frozen, then its primary is killed -9 (automatic promotion, the node comes back empty as a replica), or the
 * replica takes over with {@code CLUSTER FAILOVER FORCE}, or (link restored first) with a graceful
 * {@code CLUSTER FAILOVER}.</li>
 * </ul>
 *
 * <p>Runs by default for 25 s of load per topology (CI: about 2-3 minutes for both topologies on Redis and Valkey).
 * {@code -Dfailover.load.seconds=300} is the long manual mode; {@code -Dfailover.load=off} skips it. Before issue
 * 36's replica wait the checker found acknowledged changes lost and leases that succeeded after their acknowledged end
 * in most runs; later, rarely (once in the CI runs of 2026-12-05, in none of 7 local runs), one acknowledged change
 * lost: a replica wait that Lettuce sent again after reconnecting to the promoted node (fixed by the store's
 * {@code ConnectionDrops}, reproduced deterministically by {@code AcknowledgedEndSurvivesSentinelPromotionTests}).
 */
@DisabledIfSystemProperty(named = "failover.load", matches = "off|false")
class FailoverLoadTests {

	static final int WORKERS = 3;

	static final int THREADS = 3;

	private final RedisServerKind kind = RedisServerKind.of(getClass());

	private static Duration loadDuration() {
		return Duration.ofSeconds(Long.getLong("failover.load.seconds", 25));
	}

	@Test
	void sentinelFailoversUnderLoad() {
		Duration duration = loadDuration();
		Duration failoverTimeout = Duration.ofSeconds(5);
		ThreadLocalRandom random = ThreadLocalRandom.current();
		try (ReplicatedRedis redis = ReplicatedRedis.start(this.kind);
				LocalSentinel sentinel = LocalSentinel.start(redis, 1, failoverTimeout);
				FailoverLoadRun run = new FailoverLoadRun(this.kind.name().toLowerCase() + "-sentinel")) {
			run.startWorkers(WORKERS, THREADS, List.of(FailoverRequests.newProgram()), 12,
					Map.of("mode", "sentinel", "sentinel.ports", join(sentinel.ports())), duration.plusMinutes(3));
			long lastFailover = Long.MIN_VALUE / 2;
			boolean lastWasKill = false;
			for (int cycle = 0; run.elapsedSeconds() < duration.toSeconds(); cycle++) {
				FailoverLoadRun.sleep(random.nextLong(1500, 3000));
				// a fresh proxy each time: Sentinel re-points a replica whose master address is not the primary's
				// (+fix-slave-config) once it has seen the same one for longer than the failover timeout
				redis.linkThroughProxy(redis.replicaPort());
				String lag;
				if (cycle % 2 == 0) {
					redis.pauseLink();
					lag = "link paused";
				}
				else {
					long delay = random.nextLong(200, 600);
					redis.delayLink(Duration.ofMillis(delay));
					lag = "link delayed " + delay + " ms";
				}
				FailoverLoadRun.sleep(random.nextLong(500, 1500));
				int former = redis.primaryPort();
				long now = System.nanoTime();
				String held = lag + ", " + redis.link().heldBytes() + " bytes held";
				// Sentinel starts an automatic failover of a master only 2 x failover-timeout after the previous
				// failover (forced ones included): kill when allowed, force one right after each kill, else only lag
				if (now - lastFailover > failoverTimeout.multipliedBy(2).plusSeconds(1).toNanos()) {
					lastFailover = now;
					lastWasKill = true;
					run.fault("kill -9 of primary " + former + " (" + held + "), Sentinel promotes", () -> {
						redis.killPrimary();
						sentinel.awaitPromotion(redis, former, Duration.ofSeconds(60));
					});
					run.fault("restart " + former + " empty, as a replica behind a proxy", () -> {
						redis.restartDeadNode();
						redis.linkThroughProxy(former);
					});
				}
				else if (lastWasKill) {
					lastFailover = now;
					lastWasKill = false;
					run.fault("SENTINEL FAILOVER over " + former + " (" + held + "), former primary demoted", () -> {
						sentinel.failoverAndAwait(redis, former, Duration.ofSeconds(60));
						redis.demoteFormerPrimary(former);
					});
				}
				else {
					run.fault("lag without failover (" + held + ")", () -> {
						redis.resumeLink();
						redis.delayLink(Duration.ZERO);
						redis.awaitInSync();
					});
				}
			}
			FailoverLoadRun.sleep(2000);
			run.stopWorkers();
			try (FailoverClients.Client client = sentinel.client()) {
				run.resolveAtRisk(FailoverStores.store(client.factory()), run.history());
			}
			FailoverHistoryChecker.Report report = run.check(run.history());
			assertThat(report.total("lease_commit_authorized")).as("commits authorized").isPositive();
			run.assertNoViolations(report);
		}
	}

	@Test
	void clusterFailoversUnderLoad() {
		Duration duration = loadDuration();
		ThreadLocalRandom random = ThreadLocalRandom.current();
		try (ReplicatedCluster cluster = ReplicatedCluster.start(this.kind);
				FailoverLoadRun run = new FailoverLoadRun(this.kind.name().toLowerCase() + "-cluster")) {
			List<String> programs = new ArrayList<>();
			for (int primary : cluster.healthyPrimaries()) {
				programs.add(cluster.programOn(primary));
			}
			assertThat(programs).as("a program per shard").hasSize(3);
			run.startWorkers(WORKERS, THREADS, programs, 4,
					Map.of("mode", "cluster", "cluster.nodes", String.join(",", cluster.ports()
						.stream()
						.map((port) -> "127.0.0.1:" + port)
						.toList())),
					duration.plusMinutes(3));
			for (int cycle = 0; run.elapsedSeconds() < duration.toSeconds(); cycle++) {
				FailoverLoadRun.sleep(random.nextLong(1500, 3000));
				ProgramScope scope = ProgramScope.of(FailoverRequests.TENANT, programs.get(cycle % programs.size()));
				int primary = cluster.primaryOf(scope);
				int replica = cluster.replicaOf(primary);
				boolean cut = cycle % 2 == 0;
				if (cut) {
					cluster.cutReplicaLink(replica);
				}
				else {
					cluster.freeze(replica);
				}
				String lag = "replica " + replica + (cut ? " cut off" : " frozen");
				FailoverLoadRun.sleep(random.nextLong(500, 1500));
				switch (cycle % 3) {
					case 0 -> {
						run.fault("kill -9 of primary " + primary + " (" + lag + "), the cluster promotes " + replica,
								() -> {
									cluster.kill(primary);
									thawAndRestore(cluster, replica);
									cluster.awaitPromotion(replica, Duration.ofSeconds(60));
								});
						run.fault("restart " + primary + " empty, as a replica", () -> cluster.restartAsReplica(primary));
					}
					case 1 -> run.fault("CLUSTER FAILOVER FORCE on " + replica + " (" + lag + ")", () -> {
						if (!cut) {
							cluster.thaw(replica);
						}
						cluster.failover(replica, true);
						cluster.awaitPromotion(replica, Duration.ofSeconds(30));
						cluster.restoreReplicaLink(replica);
						cluster.awaitReplicaInSync(primary, Duration.ofSeconds(60));
					});
					default -> run.fault("CLUSTER FAILOVER on " + replica + " (" + lag + ", restored first)", () -> {
						thawAndRestore(cluster, replica);
						cluster.awaitReplicaInSync(replica, Duration.ofSeconds(60));
						cluster.failoverGracefully(replica, Duration.ofSeconds(60));
						cluster.awaitReplicaInSync(primary, Duration.ofSeconds(60));
					});
				}
			}
			FailoverLoadRun.sleep(2000);
			run.stopWorkers();
			try (FailoverClients.Client client = cluster.client()) {
				run.resolveAtRisk(FailoverStores.store(client.factory()), run.history());
			}
			FailoverHistoryChecker.Report report = run.check(run.history());
			assertThat(report.total("lease_commit_authorized")).as("commits authorized").isPositive();
			run.assertNoViolations(report);
		}
	}

	private static void thawAndRestore(ReplicatedCluster cluster, int replica) {
		if (cluster.process(replica).isSuspended()) {
			cluster.thaw(replica);
		}
		cluster.restoreReplicaLink(replica);
	}

	private static String join(List<Integer> ports) {
		return ports.stream().map(String::valueOf).collect(Collectors.joining(","));
	}

}
