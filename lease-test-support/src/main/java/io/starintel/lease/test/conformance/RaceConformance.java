package io.starintel.lease.test.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ResultCode;

import static io.starintel.lease.test.conformance.LeaseStoreFixture.TTL_MS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance under concurrency: concurrent acquires have exactly one winner, and a renewal racing a release or a
 * revoke has one atomic winner.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class RaceConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	@Test
	void concurrentAcquiresHaveExactlyOneWinner() throws Exception {
		int rounds = 50;
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < rounds; round++) {
				LockIdentity id = this.kit.identity("race-" + round);
				CountDownLatch start = new CountDownLatch(1);
				List<Future<LeaseResult>> futures = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					String owner = "owner" + t;
					futures.add(pool.submit(() -> {
						start.await();
						return this.kit.store().acquire(this.kit.acquireRequest(id, owner, TTL_MS));
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
				this.kit.release(winner.handle());
				assertThat(this.kit.acquired(id, "late").fencingToken()).isGreaterThan(winner.fencingToken());
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
				LeaseRecord lease = this.kit.acquired(this.kit.identity("rr-" + round), "alice");
				boolean revoke = round % 2 == 1;
				CountDownLatch start = new CountDownLatch(1);
				Future<LeaseResult> renewed = pool.submit(() -> {
					start.await();
					return this.kit.renew(lease.handle());
				});
				Future<LeaseResult> ended = pool.submit(() -> {
					start.await();
					return revoke ? this.kit.store().revoke(this.kit.admin(Operation.REVOKE, lease))
							: this.kit.release(lease.handle());
				});
				start.countDown();
				assertThat(ended.get(30, TimeUnit.SECONDS).code())
					.isEqualTo(revoke ? ResultCode.LEASE_REVOKED : ResultCode.LEASE_RELEASED);
				assertThat(renewed.get(30, TimeUnit.SECONDS).code()).isIn(ResultCode.LEASE_RENEWED,
						ResultCode.LEASE_LOST);
				assertThat(this.kit.inspect(lease.identity()).code())
					.isEqualTo(ResultCode.LEASE_NOT_FOUND);
				assertThat(this.kit.renew(lease.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
