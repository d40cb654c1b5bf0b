package io.starintel.lease.test.conformance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one statement of what a {@link LeaseStore} does: one test per row of the contract's transition table and per
 * row of its race/failure table that a store can show. Extend it in a test class and supply the store through the
 * hooks ({@link #createStore()}, {@link #createStoreWithAttachedKeyLimit(int)}, {@link #advanceBackendTime(long)},
 * {@link #setFencingCounter(LockIdentity, long)}); each test works in a fresh program so that classes can run in
 * parallel against a shared backend.
 *
 * <pre>{@code
 * class MyLeaseStoreConformanceTests extends LeaseStoreConformanceKit {
 *     protected LeaseStore createStore() { return new MyLeaseStore(server, policy); }
 *     protected LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys) { ... }
 *     protected void advanceBackendTime(long millis) { ... } // move a fake clock, or wait on the server's
 *     protected void setFencingCounter(LockIdentity identity, long value) { ... }
 * }
 * }</pre>
 *
 * <p>This class holds the rows of acquire, release, expiry, deadlines, TTL policy, the fencing counter, commit
 * authorization and the two races; it inherits the other contract areas, one class each: renewal
 * ({@code RenewalConformanceRows}), idempotency ({@code IdempotencyConformanceRows}), administration and listing
 * ({@code ListAndAdminConformanceRows}) and attached keys ({@code AttachedKeyConformanceRows}). The expiry sweep and
 * the lease limits are {@link LeaseStoreSweepConformanceKit}.
 */
public abstract class LeaseStoreConformanceKit extends RenewalConformanceRows {

	@Test
	void acquireIfFreeCreatesActiveLeaseWithPositiveToken() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
		assertThat(lease.fencingToken()).isPositive();
		assertThat(lease.renewedAt()).isEqualTo(lease.acquiredAt());
		assertThat(lease.expiresAt()).isEqualTo(lease.acquiredAt().plusMillis(TTL_MS));
	}

	@Test
	void secondAcquireConflictsWithoutChangingTheLease() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		LeaseResult second = this.store.acquire(acquireRequest(identity("t1"), "bob", TTL_MS));
		assertThat(second.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(second.lease()).isNull();
		LeaseResult inspected = this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline()));
		assertThat(inspected.lease()).isEqualTo(first);
	}

	@Test
	void releaseIfOwnerEndsLeaseAndNextAcquireGetsGreaterToken() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		LeaseResult released = release(first.handle());
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(released.lease().state()).isEqualTo(LeaseState.RELEASED);
		LeaseRecord second = acquired(identity("t1"), "bob");
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(second.leaseId()).isNotEqualTo(first.leaseId());
	}

	@Test
	void staleReleaseAfterReacquireLeavesSuccessor() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		assertThat(release(first.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord successor = acquired(identity("t1"), "alice");
		assertThat(release(first.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(renew(first.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline())).lease())
			.isEqualTo(successor);
	}

	@Test
	void expiryMakesLeaseUnusableAndRenewCannotReviveIt() {
		LeaseResult result = this.store.acquire(acquireRequest(identity("t1"), "alice", 2_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		advanceBackendTime(2_100);
		assertThat(renew(result.lease().handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.store.authorizeCommit(new CommitRequest(result.lease().handle(), "corr_1", deadline())).code())
			.isEqualTo(ResultCode.LEASE_LOST);
		LeaseRecord next = acquired(identity("t1"), "bob");
		assertThat(next.fencingToken()).isGreaterThan(result.lease().fencingToken());
	}

	@Test
	void pastDeadlineMutatesNothing() {
		AcquireRequest request = new AcquireRequest(identity("t1"), "request_late", Instant.now().minusSeconds(1),
				new LeaseOwner("alice", "c", "k", "i"), TTL_MS, 300_000, "e", "j", "t", null);
		assertThat(this.store.acquire(request).code()).isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline())).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void ttlOutsidePolicyIsInvalid() {
		LeaseResult tooShort = this.store.acquire(acquireRequest(identity("t1"), "alice", 10));
		assertThat(tooShort.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(tooShort.detail()).startsWith("ttl_ms:");
		assertThat(this.store.acquire(acquireRequest(identity("t1"), "alice", 100L * 24 * 3600 * 1000)).code())
			.isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
	}

	@Test
	void counterAtLimitRefusesAcquisition() {
		setFencingCounter(identity("t1"), LeaseRecord.MAX_FENCING_TOKEN - 1);
		LeaseResult result = this.store.acquire(acquireRequest(identity("t1"), "alice", TTL_MS));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isIn(Reason.FENCING_COUNTER_EXHAUSTED, Reason.BACKEND_CLOCK_BEHIND);
	}

	@Test
	void commitAuthorizationRejectsLowerTokenAfterNewAcquisition() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		assertThat(this.store.authorizeCommit(new CommitRequest(first.handle(), "corr_1", deadline())).code())
			.isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		this.store.forceRelease(admin(Operation.FORCE_RELEASE, first));
		LeaseRecord second = acquired(identity("t1"), "bob");
		assertThat(this.store.authorizeCommit(new CommitRequest(second.handle(), "corr_2", deadline())).code())
			.isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		assertThat(this.store.authorizeCommit(new CommitRequest(first.handle(), "corr_3", deadline())).code())
			.isEqualTo(ResultCode.LEASE_LOST);
	}

	@Test
	void concurrentAcquiresHaveExactlyOneWinner() throws Exception {
		int rounds = 50;
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < rounds; round++) {
				LockIdentity id = identity("race-" + round);
				CountDownLatch start = new CountDownLatch(1);
				List<Future<LeaseResult>> futures = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					String owner = "owner" + t;
					futures.add(pool.submit(() -> {
						start.await();
						return this.store.acquire(acquireRequest(id, owner, TTL_MS));
					}));
				}
				start.countDown();
				List<LeaseResult> results = new ArrayList<>();
				for (Future<LeaseResult> f : futures) {
					results.add(f.get(30, TimeUnit.SECONDS));
				}
				assertThat(results).filteredOn(r -> r.code() == ResultCode.LEASE_ACQUIRED).hasSize(1);
				assertThat(results).filteredOn(r -> r.code() == ResultCode.LEASE_CONFLICT).hasSize(threads - 1);
				LeaseRecord winner = results.stream().filter(LeaseResult::isSuccess).findFirst().orElseThrow().lease();
				release(winner.handle());
				assertThat(acquired(id, "late").fencingToken()).isGreaterThan(winner.fencingToken());
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void renewRacingReleaseOrRevokeHasOneAtomicWinner() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 100; round++) {
				LeaseRecord lease = acquired(identity("rr-" + round), "alice");
				boolean revoke = round % 2 == 1;
				CountDownLatch start = new CountDownLatch(1);
				Future<LeaseResult> renewed = pool.submit(() -> {
					start.await();
					return renew(lease.handle());
				});
				Future<LeaseResult> ended = pool.submit(() -> {
					start.await();
					return revoke ? this.store.revoke(admin(Operation.REVOKE, lease)) : release(lease.handle());
				});
				start.countDown();
				assertThat(ended.get(30, TimeUnit.SECONDS).code())
					.isEqualTo(revoke ? ResultCode.LEASE_REVOKED : ResultCode.LEASE_RELEASED);
				assertThat(renewed.get(30, TimeUnit.SECONDS).code()).isIn(ResultCode.LEASE_RENEWED, ResultCode.LEASE_LOST);
				assertThat(this.store.inspect(InspectRequest.byIdentity(lease.identity(), "corr", deadline())).code())
					.isEqualTo(ResultCode.LEASE_NOT_FOUND);
				assertThat(renew(lease.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
