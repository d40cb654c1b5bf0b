package io.starintel.lease.sweep;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.OffsetClock;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

class ExpirySweeperTests {

	private static final ProgramScope SCOPE = ProgramScope.of("tenant-a", "program-a");

	private final AtomicLong offset = new AtomicLong();

	private final InMemoryLeaseStore store = new InMemoryLeaseStore(new OffsetClock(this.offset),
			LeasePolicy.defaults().withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10)));

	private final List<SweepObserver.Tick> ticks = new CopyOnWriteArrayList<>();

	private void acquire(int count, long ttlMs) {
		for (int i = 0; i < count; i++) {
			LockIdentity identity = LockIdentity.of("tenant-a", "program-a", "starintel-target", "t-" + ttlMs + "-" + i,
					"usernamegen", "default", null);
			LeaseResult result = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
					Instant.now().plusSeconds(30), new LeaseOwner("alice", "c", "k", "i"), ttlMs, 300_000, "e", "j",
					"t", LeaseMetadata.empty()));
			assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		}
	}

	private void acquireIn(ProgramScope scope, int count, long ttlMs) {
		for (int i = 0; i < count; i++) {
			LockIdentity identity = LockIdentity.of(scope.tenantId(), scope.programId(), "starintel-target",
					"t-" + ttlMs + "-" + i, "usernamegen", "default", null);
			LeaseResult result = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
					Instant.now().plusSeconds(30), new LeaseOwner("alice", "c", "k", "i"), ttlMs, 300_000, "e", "j",
					"t", LeaseMetadata.empty()));
			assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		}
	}

	private ExpirySweeper sweeper(LeaseStore store, Duration interval, int batch, int maxBatches) {
		return ExpirySweeper.builder(new LeaseService(store, Clock.systemUTC(), Duration.ofSeconds(5), null, null))
			.programs(List.of(SCOPE))
			.interval(interval)
			.batchSize(batch)
			.maxBatchesPerTick(maxBatches)
			.observer((scope, tick) -> this.ticks.add(tick))
			.clock(new OffsetClock(this.offset))
			.build();
	}

	@Test
	void aTickIsBoundedByTheBatchCapAndTheBacklogIsSpreadOverTicks() {
		acquire(25, 200);
		acquire(3, 60_000);
		this.offset.addAndGet(1_000);
		ExpirySweeper sweeper = sweeper(this.store, Duration.ofSeconds(1), 5, 2);
		sweeper.tick();
		assertThat(this.ticks).hasSize(1);
		SweepObserver.Tick first = this.ticks.get(0);
		assertThat(first.calls()).isEqualTo(2);
		// the batch doubles while due leases remain: 5, then 10
		assertThat(first.expired()).isEqualTo(15);
		assertThat(first.backlogLeft()).isTrue();
		sweeper.tick();
		assertThat(this.ticks.get(1).expired()).isEqualTo(10);
		assertThat(this.ticks.get(1).backlogLeft()).isFalse();
		assertThat(this.ticks.get(1).activeLeases()).isEqualTo(3);
		sweeper.tick();
		assertThat(this.ticks.get(2).calls()).isEqualTo(1);
		assertThat(this.ticks.get(2).expired()).isZero();
	}

	@Test
	void aBacklogIsWorkedOffInFewDoublingCalls() {
		acquire(3_000, 200);
		this.offset.addAndGet(1_000);
		sweeper(this.store, Duration.ofSeconds(1), 100, 10).tick();
		// 100 + 200 + 400 + 800 + 1000 + 1000 > 3000: six calls, not thirty
		assertThat(this.ticks).singleElement().satisfies((tick) -> {
			assertThat(tick.expired()).isEqualTo(3_000);
			assertThat(tick.calls()).isEqualTo(6);
			assertThat(tick.backlogLeft()).isFalse();
		});
	}

	@Test
	void discoveredProgramsAreSweptWhenDueAndConfiguredOnesEveryTick() {
		ProgramScope other = ProgramScope.of("tenant-a", "program-b");
		acquireIn(other, 4, 200);
		acquireIn(other, 1, 60_000);
		List<ProgramScope> swept = new CopyOnWriteArrayList<>();
		ExpirySweeper sweeper = ExpirySweeper
			.builder(new LeaseService(this.store, Clock.systemUTC(), Duration.ofSeconds(5), null, null))
			.programs(List.of(SCOPE))
			.discoverPrograms(true)
			.interval(Duration.ofSeconds(1))
			.observer((scope, tick) -> {
				swept.add(scope);
				this.ticks.add(tick);
			})
			.clock(new OffsetClock(this.offset))
			.build();
		sweeper.tick();
		assertThat(sweeper.discoveredPrograms()).containsExactly(other);
		assertThat(swept).containsExactly(SCOPE, other);
		this.offset.addAndGet(1_000);
		swept.clear();
		// the discovered program's earliest expiry (200 ms after the first tick, in backend time) has come
		sweeper.tick();
		assertThat(swept).containsExactly(SCOPE, other);
		assertThat(this.ticks.get(this.ticks.size() - 1).expired()).isEqualTo(4);
		swept.clear();
		// next due 60 s on: the configured program is swept, the discovered one waits (at most ten intervals)
		sweeper.tick();
		assertThat(swept).containsExactly(SCOPE);
	}

	@Test
	void aProgramAnotherInstanceClaimsIsLeftToIt() {
		List<SweepRequest> requests = new CopyOnWriteArrayList<>();
		LeaseStore claimed = new FailingStore() {
			@Override
			public SweepResult sweepExpired(SweepRequest request) {
				requests.add(request);
				return SweepResult.failure(SweepResult.Status.CLAIMED, Instant.now());
			}
		};
		ExpirySweeper sweeper = ExpirySweeper
			.builder(new LeaseService(claimed, Clock.systemUTC(), Duration.ofSeconds(5), null, null))
			.programs(List.of(SCOPE))
			.claimant("instance-1")
			.interval(Duration.ofSeconds(1))
			.observer((scope, tick) -> this.ticks.add(tick))
			.build();
		sweeper.tick();
		sweeper.tick();
		// one call: the claim lasts three intervals; nothing is reported as a failure
		assertThat(requests).singleElement().satisfies((request) -> {
			assertThat(request.claimant()).isEqualTo("instance-1");
			assertThat(request.claimFor()).isEqualTo(Duration.ofSeconds(3));
		});
		assertThat(this.ticks).isEmpty();
	}

	@Test
	void anInvalidClaimantFailsTheBuild() {
		assertThatIllegalArgumentException().isThrownBy(() -> ExpirySweeper
			.builder(new LeaseService(this.store, Clock.systemUTC(), Duration.ofSeconds(5), null, null))
			.claimant("an instance id with spaces")
			.build());
	}

	@Test
	void aFailedCallEndsTheProgramsTickWithItsStatus() {
		ExpirySweeper sweeper = sweeper(new FailingStore(), Duration.ofSeconds(1), 5, 10);
		sweeper.tick();
		assertThat(this.ticks).singleElement().satisfies((tick) -> {
			assertThat(tick.calls()).isEqualTo(1);
			assertThat(tick.lastStatus()).isEqualTo(SweepResult.Status.BACKEND_UNAVAILABLE);
			assertThat(tick.activeLeases()).isEqualTo(-1);
		});
	}

	@Test
	void startedSweeperEndsDueLeasesWithoutAnyoneTouchingThem() {
		acquire(4, 200);
		ExpirySweeper sweeper = sweeper(this.store, Duration.ofMillis(50), 50, 20);
		sweeper.start();
		try {
			this.offset.addAndGet(1_000);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.ticks.stream().mapToLong(SweepObserver.Tick::expired).sum() == 4);
			assertThat(sweeper.isRunning()).isTrue();
		}
		finally {
			sweeper.close();
		}
		assertThat(sweeper.isRunning()).isFalse();
	}

	@Test
	void closeNeverWaitsForACallInFlight() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		LeaseStore blocking = new FailingStore() {
			@Override
			public SweepResult sweepExpired(SweepRequest request) {
				entered.countDown();
				try {
					release.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return SweepResult.failure(SweepResult.Status.OUTCOME_UNKNOWN, null);
			}
		};
		ExpirySweeper sweeper = sweeper(blocking, Duration.ofMillis(10), 5, 1);
		sweeper.start();
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		long start = System.nanoTime();
		sweeper.close();
		long closedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		release.countDown();
		// 30 s is what the call would block for; close returns at once (margin far above 10x)
		assertThat(closedMs).isLessThan(3_000);
	}

	@Test
	void everyCallCarriesAFiniteDeadline() {
		List<Instant> deadlines = new ArrayList<>();
		AtomicInteger calls = new AtomicInteger();
		LeaseStore recording = new FailingStore() {
			@Override
			public SweepResult sweepExpired(SweepRequest request) {
				deadlines.add(request.deadlineAt());
				calls.incrementAndGet();
				return new SweepResult(SweepResult.Status.SWEPT, List.of(), 0, 0, calls.get() < 3, 0, Instant.now(), null);
			}
		};
		Instant before = Instant.now();
		sweeper(recording, Duration.ofMillis(200), 5, 10).tick();
		assertThat(calls.get()).isEqualTo(3);
		assertThat(deadlines).allSatisfy((d) -> assertThat(d).isBefore(before.plusSeconds(6)));
	}

	@Test
	void sweepMetricsRecordPerProgramWithoutTargets() {
		acquire(3, 200);
		acquire(2, 60_000);
		this.offset.addAndGet(1_000);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		ExpirySweeper sweeper = ExpirySweeper
			.builder(new LeaseService(this.store, Clock.systemUTC(), Duration.ofSeconds(5), null, null))
			.programs(List.of(SCOPE))
			.maxBatchesPerTick(5)
			.meters(registry)
			.clock(new OffsetClock(this.offset))
			.build();
		assertThat(registry.get(LeaseMeters.ACTIVE).tag("program", "program-a").gauge().value()).isZero();
		sweeper.tick();
		assertThat(registry.get(LeaseMeters.EXPIRED).tag("program", "program-a").counter().count()).isEqualTo(3);
		assertThat(registry.get(LeaseMeters.ACTIVE).gauge().value()).isEqualTo(2);
		assertThat(registry.get(LeaseMeters.SWEEP_DURATION).timer().count()).isEqualTo(1);
		assertThat(registry.get(LeaseMeters.SCANNED).summary().totalAmount()).isEqualTo(3);
		assertThat(registry.get(LeaseMeters.EXPIRED_PER_TICK).summary().max()).isEqualTo(3);
		assertThat(registry.get(LeaseMeters.ATTACHED_KEYS_DELETED).counter().count()).isZero();
		assertThat(registry.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTags())
			.allSatisfy((tag) -> assertThat(tag.getKey()).isIn("program", "status")));
	}

	/** A store whose sweep answers backend_unavailable and whose other operations are never called here. */
	private static class FailingStore implements LeaseStore {

		@Override
		public SweepResult sweepExpired(SweepRequest request) {
			return SweepResult.failure(SweepResult.Status.BACKEND_UNAVAILABLE, null);
		}

		@Override
		public LeaseResult acquire(AcquireRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeaseResult renew(RenewRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeaseResult release(ReleaseRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeaseResult inspect(InspectRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeasePage list(ListRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeaseResult forceRelease(AdminRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeaseResult revoke(AdminRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeaseResult authorizeCommit(CommitRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public LeaseResult resolve(ResolveRequest request) {
			throw new UnsupportedOperationException();
		}

	}

}
