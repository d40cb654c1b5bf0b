package io.starintel.lease.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance rows of the expiry sweep ({@link LeaseStore#sweepExpired}) and of the lease limits (active leases per
 * program and per tenant, minimum TTL), for every store: the reference store and the Redis/Valkey store run the same
 * rows. Each test works in a fresh program.
 */
public abstract class LeaseStoreSweepConformanceKit {

	/** The TTL of leases meant to expire during a test. */
	protected static final long SHORT_TTL_MS = 300;

	/** The policy of the suites: TTLs from 100 ms, so that expiry shows in well under a second. */
	protected static final LeasePolicy TEST_POLICY = LeasePolicy.defaults()
		.withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10));

	protected LeaseStore store;

	protected String program;

	/** A store with the given policy (each call may return a new store over the same backend). */
	protected abstract LeaseStore createStore(LeasePolicy policy);

	/** Another store over the same backend data as {@link #store} (another client of the same server). */
	protected LeaseStore sameBackend() {
		return createStore(TEST_POLICY);
	}

	/** Moves backend time forward (a fake clock) or waits until it has moved (a real server). */
	protected abstract void advanceBackendTime(long millis);

	@BeforeEach
	void setUpStore() {
		this.store = createStore(TEST_POLICY);
		this.program = "p-" + UUID.randomUUID().toString().substring(0, 8);
	}

	protected ProgramScope scope() {
		return ProgramScope.of("tenant-kit", this.program);
	}

	protected LockIdentity identity(String target) {
		return LockIdentity.of("tenant-kit", this.program, "starintel-target", target, "usernamegen", "default", null);
	}

	protected static Instant deadline() {
		return Instant.now().plusSeconds(30);
	}

	protected static AcquireRequest acquireRequest(LockIdentity identity, String owner, long ttlMs) {
		return new AcquireRequest(identity, Identifiers.generate("request"), deadline(),
				new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), ttlMs, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty());
	}

	protected static LeaseRecord acquired(LeaseStore store, LockIdentity identity, long ttlMs) {
		LeaseResult result = store.acquire(acquireRequest(identity, "alice", ttlMs));
		assertThat(result.code()).as(result.toString()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	protected SweepResult sweep(int batch) {
		return this.store.sweepExpired(new SweepRequest(scope(), batch, deadline()));
	}

	private boolean inspectFinds(LockIdentity identity) {
		return this.store.inspect(InspectRequest.byIdentity(identity, "corr_1", deadline()))
			.code() == ResultCode.LEASE_INSPECTED;
	}

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
		// inspect (like acquire's reclaim on Redis) ends the expired lease before any sweep
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

	// ---- limits ----------------------------------------------------------------------------------------------------

	@Test
	void grantBeyondTheProgramLimitIsRateLimitedAndChangesNothing() {
		LeaseStore limited = createStore(TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(3, Map.of())));
		List<LeaseRecord> held = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			held.add(acquired(limited, identity("t" + i), 60_000));
		}
		LeaseResult refused = limited.acquire(acquireRequest(identity("t3"), "alice", 60_000));
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		assertThat(refused.reason()).isEqualTo(Reason.ACTIVE_LEASE_LIMIT_REACHED);
		assertThat(refused.code().retryable()).isTrue();
		assertThat(refused.lease()).isNull();
		assertThat(inspectFinds(identity("t3"))).isFalse();
		// an identity already held is a conflict, not a quota refusal
		assertThat(limited.acquire(acquireRequest(identity("t0"), "bob", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_CONFLICT);
		// another program has its own count
		LockIdentity elsewhere = LockIdentity.of("tenant-kit", this.program + "-b", "starintel-target", "t0",
				"usernamegen", "default", null);
		acquired(limited, elsewhere, 60_000);
		// releasing one frees a slot
		assertThat(limited.release(new ReleaseRequest(held.get(0).handle(), Identifiers.generate("request"),
				deadline())).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord fourth = acquired(limited, identity("t3"), 60_000);
		assertThat(fourth.fencingToken()).isPositive();
	}

	@Test
	void expiredLeasesDoNotCountTowardsTheLimitEvenBeforeTheyAreSwept() {
		LeaseStore limited = createStore(TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(2, Map.of())));
		acquired(limited, identity("short-1"), SHORT_TTL_MS);
		acquired(limited, identity("short-2"), SHORT_TTL_MS);
		assertThat(limited.acquire(acquireRequest(identity("t3"), "alice", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		advanceBackendTime(SHORT_TTL_MS + 50);
		acquired(limited, identity("t3"), 60_000);
		acquired(limited, identity("t4"), 60_000);
		assertThat(limited.acquire(acquireRequest(identity("t5"), "alice", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_RATE_LIMITED);
	}

	@Test
	void replayOfAGrantedAcquireIsNotRateLimited() {
		LeaseStore limited = createStore(TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(1, Map.of())));
		AcquireRequest request = acquireRequest(identity("t1"), "alice", 60_000);
		LeaseRecord lease = limited.acquire(request).lease();
		LeaseResult replay = limited.acquire(request);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.lease().leaseId()).isEqualTo(lease.leaseId());
	}

	@Test
	void aTenantLimitReplacesTheProgramLimitForThatTenantsPrograms() {
		LeaseStore limited = createStore(
				TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(5, Map.of("tenant-kit", 1L))));
		acquired(limited, identity("t1"), 60_000);
		assertThat(limited.acquire(acquireRequest(identity("t2"), "alice", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		LockIdentity otherTenant = LockIdentity.of("tenant-other", this.program, "starintel-target", "t1",
				"usernamegen", "default", null);
		LockIdentity otherTenant2 = LockIdentity.of("tenant-other", this.program, "starintel-target", "t2",
				"usernamegen", "default", null);
		acquired(limited, otherTenant, 60_000);
		acquired(limited, otherTenant2, 60_000);
	}

	@Test
	void minimumTtlIsOneSecondExclusiveByDefault() {
		LeaseStore defaults = createStore(LeasePolicy.defaults());
		LeaseResult atMinimum = defaults.acquire(acquireRequest(identity("t1"), "alice", 1_000));
		assertThat(atMinimum.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(atMinimum.detail()).startsWith("ttl_ms:");
		assertThat(inspectFinds(identity("t1"))).isFalse();
		acquired(defaults, identity("t1"), 1_001);
	}

}
