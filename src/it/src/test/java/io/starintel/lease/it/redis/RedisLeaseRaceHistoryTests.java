package io.starintel.lease.it.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * Race test with observed histories: 16 threads on one identity doing acquire / renew / release for thousands of
 * operations against real Redis. From the recorded results alone (backend decision times, lease intervals, tokens):
 * no two leases' backend-time intervals overlap, tokens strictly increase in grant order, and every conflict was
 * answered while another lease was active.
 */
class RedisLeaseRaceHistoryTests extends SharedRedisTests {

	private static final int THREADS = 16;

	private static final int CYCLES_PER_THREAD = 400;

	/** One observed operation result. */
	private record Observation(String thread, String kind, LeaseResult result, LeaseRecord lease) {
	}

	@Test
	void historiesShowMutualExclusionAndIncreasingTokens() throws Exception {
		RedisLeaseStore store = RedisServers.store(factory);
		LockIdentity identity = LockIdentity.of("tenant-race", "p-" + UUID.randomUUID().toString().substring(0, 8),
				"starintel-target", "contended", "usernamegen", "default", null);
		ConcurrentLinkedQueue<Observation> history = new ConcurrentLinkedQueue<>();
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			String name = "worker-" + t;
			futures.add(pool.submit(() -> {
				start.await();
				work(store, identity, name, history);
				return null;
			}));
		}
		start.countDown();
		for (Future<?> future : futures) {
			future.get(120, TimeUnit.SECONDS);
		}
		pool.shutdown();
		check(new ArrayList<>(history));
	}

	private static void work(RedisLeaseStore store, LockIdentity identity, String name,
			ConcurrentLinkedQueue<Observation> history) {
		LeaseOwner owner = new LeaseOwner("prn_" + name, "client_1", "key_1", "instance_" + name);
		for (int i = 0; i < CYCLES_PER_THREAD; i++) {
			AcquireRequest request = new AcquireRequest(identity, Identifiers.generate("request"),
					Instant.now().plusSeconds(10), owner, 30_000, 300_000, Identifiers.generate("execution"), "job_1",
					"trace_1", LeaseMetadata.empty());
			LeaseResult acquired = store.acquire(request);
			history.add(new Observation(name, "acquire", acquired, acquired.lease()));
			if (acquired.code() != ResultCode.LEASE_ACQUIRED) {
				continue;
			}
			LeaseRecord lease = acquired.lease();
			if (i % 3 == 0) {
				LeaseResult renewed = store.renew(new RenewRequest(lease.handle(), Identifiers.generate("request"),
						Instant.now().plusSeconds(10)));
				history.add(new Observation(name, "renew", renewed, lease));
			}
			LeaseResult released = store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("request"),
					Instant.now().plusSeconds(10)));
			history.add(new Observation(name, "release", released, lease));
		}
	}

	private static void check(List<Observation> history) {
		List<LeaseRecord> grants = new ArrayList<>();
		Map<String, Instant> ends = new HashMap<>();
		List<Instant> conflicts = new ArrayList<>();
		for (Observation o : history) {
			ResultCode code = o.result().code();
			if (o.kind().equals("acquire") && code == ResultCode.LEASE_ACQUIRED) {
				grants.add(o.lease());
			}
			else if (o.kind().equals("acquire")) {
				assertThat(code).as("only grants and conflicts are expected").isEqualTo(ResultCode.LEASE_CONFLICT);
				conflicts.add(o.result().decidedAt());
			}
			else if (o.kind().equals("release")) {
				assertThat(code).as("the holder's own release succeeds").isEqualTo(ResultCode.LEASE_RELEASED);
				ends.put(o.lease().leaseId(), o.result().decidedAt());
			}
			else {
				assertThat(code).as("the holder's own renewal succeeds").isEqualTo(ResultCode.LEASE_RENEWED);
				assertThat(o.result().lease().fencingToken()).isEqualTo(o.lease().fencingToken());
			}
		}
		assertThat(history.size()).isGreaterThan(THREADS * CYCLES_PER_THREAD);
		assertThat(grants.size()).isGreaterThan(THREADS);
		assertThat(conflicts).isNotEmpty();
		grants.sort(Comparator.comparingLong(LeaseRecord::fencingToken));
		for (int i = 1; i < grants.size(); i++) {
			LeaseRecord previous = grants.get(i - 1);
			LeaseRecord next = grants.get(i);
			assertThat(next.fencingToken()).as("tokens strictly increase").isGreaterThan(previous.fencingToken());
			assertThat(next.acquiredAt()).as("grant order follows token order").isAfterOrEqualTo(previous.acquiredAt());
			assertThat(ends.get(previous.leaseId()))
				.as("lease %d ended no later than its successor began", i - 1)
				.isBeforeOrEqualTo(next.acquiredAt());
		}
		for (Instant conflict : conflicts) {
			boolean covered = grants.stream()
				.anyMatch(g -> !conflict.isBefore(g.acquiredAt()) && !conflict.isAfter(ends.get(g.leaseId())));
			assertThat(covered).as("conflict at %s was answered while a lease was active", conflict).isTrue();
		}
	}

}
