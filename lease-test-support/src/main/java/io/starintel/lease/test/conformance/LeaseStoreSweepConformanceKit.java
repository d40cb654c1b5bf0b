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

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeasePolicy;
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
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance rows of the expiry sweep ({@link LeaseStore#sweepExpired}) and of the lease limits (active leases per
 * program and per tenant, minimum TTL), for every store: the reference store and the Redis/Valkey store run the same
 * rows. Extend it in a test class and supply the store through {@link #createStore(LeasePolicy)},
 * {@link #advanceBackendTime(long)} and, for a store with a shared server, {@link #sameBackend()}; each test works
 * in a fresh program.
 *
 * <p>This class holds the sweep rows; it inherits the limit rows ({@code ActiveLeaseLimitConformanceRows}).
 */
public abstract class LeaseStoreSweepConformanceKit extends ActiveLeaseLimitConformanceRows {

	@Test
	void sweepEndsExactlyTheDueLeasesAsExpired() {
		List<LeaseRecord> due = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			due.add(acquired(this.store, identity("due-" + i), SHORT_TTL_MS));
		}
		LeaseRecord live = acquired(this.store, identity("live"), 60_000);
		advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult result = sweep(50);
		assertThat(result.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(result.expired()).extracting(LeaseRecord::leaseId)
			.containsExactlyInAnyOrderElementsOf(due.stream().map(LeaseRecord::leaseId).toList());
		assertThat(result.expired()).allSatisfy((r) -> assertThat(r.state()).isEqualTo(LeaseState.EXPIRED));
		assertThat(result.expired()).extracting(LeaseRecord::fencingToken)
			.containsExactlyInAnyOrderElementsOf(due.stream().map(LeaseRecord::fencingToken).toList());
		assertThat(result.more()).isFalse();
		assertThat(result.activeLeases()).isEqualTo(1);
		assertThat(result.decidedAt()).isNotNull();
		assertThat(inspectFinds(live.identity())).isTrue();
		assertThat(inspectFinds(due.get(0).identity())).isFalse();
		SweepResult again = sweep(50);
		assertThat(again.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(again.expired()).isEmpty();
	}

	@Test
	void sweepIsBoundedByTheBatchLimitAndReportsTheBacklog() {
		for (int i = 0; i < 5; i++) {
			acquired(this.store, identity("due-" + i), SHORT_TTL_MS);
		}
		advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult first = sweep(2);
		assertThat(first.expired()).hasSize(2);
		assertThat(first.more()).isTrue();
		SweepResult second = sweep(2);
		assertThat(second.expired()).hasSize(2);
		assertThat(second.more()).isTrue();
		SweepResult third = sweep(2);
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
		LeaseRecord lease = acquired(this.store, identity("renewed"), 1_000);
		advanceBackendTime(600);
		LeaseResult renewed = this.store
			.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"), deadline()));
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		advanceBackendTime(600);
		// past the original expires_at, before the renewed one
		SweepResult result = sweep(50);
		assertThat(result.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(result.expired()).isEmpty();
		assertThat(inspectFinds(lease.identity())).isTrue();
	}

	@Test
	void sweptLeaseIsTerminalForReplaysAndItsSuccessorGetsAGreaterToken() {
		AcquireRequest request = acquireRequest(identity("t1"), "alice", SHORT_TTL_MS);
		LeaseRecord lease = this.store.acquire(request).lease();
		advanceBackendTime(SHORT_TTL_MS + 50);
		assertThat(sweep(50).expired()).extracting(LeaseRecord::leaseId).containsExactly(lease.leaseId());
		LeaseResult replay = this.store.acquire(request);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.currentState()).isEqualTo(LeaseState.EXPIRED);
		LeaseResult resolved = this.store.resolve(new ResolveRequest(Operation.ACQUIRE, lease.identity(), "alice",
				request.requestId(), deadline()));
		assertThat(resolved.currentState()).isEqualTo(LeaseState.EXPIRED);
		LeaseResult renew = this.store
			.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"), deadline()));
		assertThat(renew.code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseRecord successor = acquired(this.store, identity("t1"), 60_000);
		assertThat(successor.fencingToken()).isGreaterThan(lease.fencingToken());
		assertThat(sweep(50).expired()).isEmpty();
	}

	@Test
	void aLeaseAnotherOperationFoundExpiredFirstIsStillReportedExactlyOnce() {
		LeaseRecord lease = acquired(this.store, identity("t1"), SHORT_TTL_MS);
		advanceBackendTime(SHORT_TTL_MS + 50);
		// inspect (like any call on that identity) ends the expired lease before any sweep
		assertThat(inspectFinds(lease.identity())).isFalse();
		acquired(this.store, identity("t2"), 60_000);
		SweepResult first = sweep(50);
		assertThat(first.expired()).extracting(LeaseRecord::leaseId).containsExactly(lease.leaseId());
		assertThat(first.expired().get(0).state()).isEqualTo(LeaseState.EXPIRED);
		assertThat(first.more()).isFalse();
		assertThat(sweep(50).expired()).isEmpty();
	}

	@Test
	void pastDeadlineSweepEndsNothing() {
		LeaseRecord lease = acquired(this.store, identity("t1"), SHORT_TTL_MS);
		advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult late = this.store.sweepExpired(new SweepRequest(scope(), 50, Instant.now().minusSeconds(1)));
		assertThat(late.status()).isEqualTo(SweepResult.Status.DEADLINE_EXCEEDED);
		assertThat(late.expired()).isEmpty();
		assertThat(sweep(50).expired()).extracting(LeaseRecord::leaseId).containsExactly(lease.leaseId());
	}

	@Test
	void sweepStaysInsideItsProgram() {
		acquired(this.store, identity("t1"), SHORT_TTL_MS);
		advanceBackendTime(SHORT_TTL_MS + 50);
		SweepResult other = this.store
			.sweepExpired(new SweepRequest(ProgramScope.of("tenant-kit", this.program + "-other"), 50, deadline()));
		assertThat(other.expired()).isEmpty();
		assertThat(sweep(50).expired()).hasSize(1);
	}

	@Test
	void concurrentSweepersEndEachLeaseExactlyOnce() throws Exception {
		int leases = 60;
		Set<String> all = new HashSet<>();
		for (int i = 0; i < leases; i++) {
			all.add(acquired(this.store, identity("race-" + i), SHORT_TTL_MS).leaseId());
		}
		advanceBackendTime(SHORT_TTL_MS + 50);
		List<LeaseStore> stores = List.of(this.store, sameBackend(), sameBackend());
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(3);
		try {
			List<Future<List<String>>> futures = new ArrayList<>();
			for (LeaseStore sweeper : stores) {
				Callable<List<String>> task = () -> {
					start.await(10, TimeUnit.SECONDS);
					List<String> ended = new ArrayList<>();
					for (int round = 0; round < 100; round++) {
						SweepResult r = sweeper.sweepExpired(new SweepRequest(scope(), 7, deadline()));
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
