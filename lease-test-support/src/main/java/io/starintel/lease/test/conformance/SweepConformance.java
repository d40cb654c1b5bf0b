package io.starintel.lease.test.conformance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.LeaseStore;

import static io.starintel.lease.test.conformance.SweepFixture.SHORT_TTL_MS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of the expiry sweep ({@link io.starintel.lease.store.LeaseStore#sweepExpired}): exactly the due leases
 * end as expired, bounded by the batch limit with the backlog reported, a renewed lease is left alone, a swept lease
 * is terminal for replays, a lease another operation ended first is still reported once, a late sweep ends nothing,
 * a sweep stays in its program, and concurrent sweepers end each lease exactly once.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class SweepConformance {

	private SweepFixture kit;

	@BeforeEach
	void setUpFixture(SweepStoreUnderTest underTest) {
		this.kit = new SweepFixture(underTest);
	}

	@Test
	void sweepEndsExactlyTheDueLeasesAsExpired() {
		List<LeaseRecord> due = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			due.add(this.kit.acquired(this.kit.store(), this.kit.identity("due-" + i), SHORT_TTL_MS));
		}
		LeaseRecord live = this.kit.acquired(this.kit.store(), this.kit.identity("live"), 60_000);
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult result = this.kit.sweep(50);
		assertThat(result.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(result.expired()).extracting(LeaseRecord::leaseId)
			.containsExactlyInAnyOrderElementsOf(due.stream().map(LeaseRecord::leaseId).toList());
		assertThat(result.expired()).allSatisfy((r) -> assertThat(r.state()).isEqualTo(LeaseState.EXPIRED));
		assertThat(result.expired()).extracting(LeaseRecord::fencingToken)
			.containsExactlyInAnyOrderElementsOf(due.stream().map(LeaseRecord::fencingToken).toList());
		assertThat(result.more()).isFalse();
		assertThat(result.activeLeases()).isEqualTo(1);
		assertThat(result.decidedAt()).isNotNull();
		assertThat(this.kit.inspectFinds(live.identity())).isTrue();
		assertThat(this.kit.inspectFinds(due.get(0).identity())).isFalse();
		SweepResult again = this.kit.sweep(50);
		assertThat(again.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(again.expired()).isEmpty();
	}

	@Test
	void sweepIsBoundedByTheBatchLimitAndReportsTheBacklog() {
		for (int i = 0; i < 5; i++) {
			this.kit.acquired(this.kit.store(), this.kit.identity("due-" + i), SHORT_TTL_MS);
		}
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult first = this.kit.sweep(2);
		assertThat(first.expired()).hasSize(2);
		assertThat(first.more()).isTrue();
		SweepResult second = this.kit.sweep(2);
		assertThat(second.expired()).hasSize(2);
		assertThat(second.more()).isTrue();
		SweepResult third = this.kit.sweep(2);
		assertThat(third.expired()).hasSize(1);
		assertThat(third.more()).isFalse();
		Set<String> ids = new HashSet<>();
		for (SweepResult r : List.of(first, second, third)) {
			r.expired().forEach((lease) -> ids.add(lease.leaseId()));
		}
		assertThat(ids).hasSize(5);
	}

	@Test
	void sweepLeavesARenewedLeaseAlone() {
		LeaseRecord lease = this.kit.acquired(this.kit.store(), this.kit.identity("renewed"), 1_000);
		this.kit.advanceBackendTime(600);
		LeaseResult renewed = this.kit.store()
			.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"), this.kit.deadline()));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		this.kit.advanceBackendTime(600);
		// past the original expires_at, before the renewed one
		SweepResult result = this.kit.sweep(50);
		assertThat(result.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(result.expired()).isEmpty();
		assertThat(this.kit.inspectFinds(lease.identity())).isTrue();
	}

	@Test
	void sweptLeaseIsTerminalForReplaysAndItsSuccessorGetsAGreaterToken() {
		AcquireRequest request = this.kit.acquireRequest(this.kit.identity("t1"), "alice", SHORT_TTL_MS);
		LeaseRecord lease = this.kit.store().acquire(request).lease();
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		assertThat(this.kit.sweep(50).expired()).extracting(LeaseRecord::leaseId).containsExactly(lease.leaseId());
		LeaseResult replay = this.kit.store().acquire(request);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.currentState()).isEqualTo(LeaseState.EXPIRED);
		LeaseResult resolved = this.kit.store().resolve(new ResolveRequest(Operation.ACQUIRE, lease.identity(), "alice",
				request.requestId(), this.kit.deadline()));
		assertThat(resolved.currentState()).isEqualTo(LeaseState.EXPIRED);
		LeaseResult renew = this.kit.store()
			.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"), this.kit.deadline()));
		assertThat(renew.code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseRecord successor = this.kit.acquired(this.kit.store(), this.kit.identity("t1"), 60_000);
		assertThat(successor.fencingToken()).isGreaterThan(lease.fencingToken());
		assertThat(this.kit.sweep(50).expired()).isEmpty();
	}

	@Test
	void aLeaseAnotherOperationFoundExpiredFirstIsStillReportedExactlyOnce() {
		LeaseRecord lease = this.kit.acquired(this.kit.store(), this.kit.identity("t1"), SHORT_TTL_MS);
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		// inspect (like any call on that identity) ends the expired lease before any sweep
		assertThat(this.kit.inspectFinds(lease.identity())).isFalse();
		this.kit.acquired(this.kit.store(), this.kit.identity("t2"), 60_000);
		SweepResult first = this.kit.sweep(50);
		assertThat(first.expired()).extracting(LeaseRecord::leaseId).containsExactly(lease.leaseId());
		assertThat(first.expired().get(0).state()).isEqualTo(LeaseState.EXPIRED);
		assertThat(first.more()).isFalse();
		assertThat(this.kit.sweep(50).expired()).isEmpty();
	}

	@Test
	void pastDeadlineSweepEndsNothing() {
		LeaseRecord lease = this.kit.acquired(this.kit.store(), this.kit.identity("t1"), SHORT_TTL_MS);
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult late = this.kit.store().sweepExpired(new SweepRequest(this.kit.scope(), 50,
				Instant.now().minusSeconds(1)));
		assertThat(late.status()).isEqualTo(SweepResult.Status.DEADLINE_EXCEEDED);
		assertThat(late.expired()).isEmpty();
		assertThat(this.kit.sweep(50).expired()).extracting(LeaseRecord::leaseId).containsExactly(lease.leaseId());
	}

	@Test
	void sweepStaysInsideItsProgram() {
		this.kit.acquired(this.kit.store(), this.kit.identity("t1"), SHORT_TTL_MS);
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult other = this.kit.store()
			.sweepExpired(new SweepRequest(ProgramScope.of("tenant-kit", this.kit.program() + "-other"), 50,
					this.kit.deadline()));
		assertThat(other.expired()).isEmpty();
		assertThat(this.kit.sweep(50).expired()).hasSize(1);
	}

	@Test
	void concurrentSweepersEndEachLeaseExactlyOnce() throws Exception {
		int leases = 60;
		Set<String> all = new HashSet<>();
		for (int i = 0; i < leases; i++) {
			all.add(this.kit.acquired(this.kit.store(), this.kit.identity("race-" + i), SHORT_TTL_MS).leaseId());
		}
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		List<LeaseStore> stores = List.of(this.kit.store(), this.kit.sameBackend(), this.kit.sameBackend());
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(3);
		try {
			List<Future<List<String>>> futures = new ArrayList<>();
			for (LeaseStore sweeper : stores) {
				Callable<List<String>> task = () -> {
					start.await(10, TimeUnit.SECONDS);
					List<String> ended = new ArrayList<>();
					for (int round = 0; round < 100; round++) {
						SweepResult r = sweeper.sweepExpired(new SweepRequest(this.kit.scope(), 7,
								this.kit.deadline()));
						r.expired().forEach((lease) -> ended.add(lease.leaseId()));
						if (!r.more()) {
							break;
						}
					}
					return ended;
				};
				futures.add(pool.submit(task));
			}
			start.countDown();
			List<String> ended = new ArrayList<>();
			for (Future<List<String>> future : futures) {
				ended.addAll(future.get(30, TimeUnit.SECONDS));
			}
			assertThat(ended).hasSize(leases).doesNotHaveDuplicates();
			assertThat(new HashSet<>(ended)).isEqualTo(all);
		}
		finally {
			pool.shutdownNow();
		}
	}

}
