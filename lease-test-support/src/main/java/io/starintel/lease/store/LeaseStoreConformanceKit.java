package io.starintel.lease.store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one statement of what a {@link LeaseStore} does: one test per row of the contract's transition table and
 * per row of its race/failure table that a store can show. Subclasses supply the store; each test works in a
 * fresh program so that classes can run in parallel against a shared backend.
 */
public abstract class LeaseStoreConformanceKit {

	protected static final long TTL_MS = 60_000;

	protected LeaseStore store;

	protected String program;

	/** The store under test, fresh or shared. */
	protected abstract LeaseStore createStore();

	/** Moves backend time forward (a fake clock) or waits until it has moved (a real server). */
	protected abstract void advanceBackendTime(long millis);

	/** Sets the durable fencing counter of an identity, to exercise the numeric limit. */
	protected abstract void setFencingCounter(LockIdentity identity, long value);

	@BeforeEach
	void setUpStore() {
		this.store = createStore();
		this.program = "p-" + UUID.randomUUID().toString().substring(0, 8);
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

	protected LeaseRecord acquired(LockIdentity identity, String owner) {
		LeaseResult result = this.store.acquire(acquireRequest(identity, owner, TTL_MS));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	protected LeaseResult renew(LeaseHandle handle) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline()));
	}

	protected LeaseResult release(LeaseHandle handle) {
		return this.store.release(new ReleaseRequest(handle, Identifiers.generate("request"), deadline()));
	}

	protected static AdminRequest admin(Operation op, LeaseRecord lease) {
		return new AdminRequest(op, lease.identity(), Identifiers.generate("request"), deadline(), lease.leaseId(),
				lease.fencingToken(), "prn_admin", "key_admin", "incident-42");
	}

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
	void renewIfOwnerKeepsTokenAndRequiresEveryField() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		LeaseHandle h = lease.handle();
		assertThat(renew(new LeaseHandle(h.identity(), "lease_other", h.ownerPrincipalId(), h.serviceInstanceId(),
				h.fencingToken())).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(renew(new LeaseHandle(h.identity(), h.leaseId(), "mallory", h.serviceInstanceId(),
				h.fencingToken())).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(renew(new LeaseHandle(h.identity(), h.leaseId(), h.ownerPrincipalId(), "instance-x",
				h.fencingToken())).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(renew(new LeaseHandle(h.identity(), h.leaseId(), h.ownerPrincipalId(), h.serviceInstanceId(),
				h.fencingToken() + 1)).code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseResult renewed = renew(h);
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(renewed.lease().leaseId()).isEqualTo(lease.leaseId());
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
	void forceReleaseAndRevokeCompareAgainstObservedLease() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		assertThat(this.store.forceRelease(admin(Operation.FORCE_RELEASE, first)).code())
			.isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord successor = acquired(identity("t1"), "bob");
		assertThat(this.store.revoke(admin(Operation.REVOKE, first)).code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseResult revoked = this.store.revoke(admin(Operation.REVOKE, successor));
		assertThat(revoked.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(revoked.lease().state()).isEqualTo(LeaseState.REVOKED);
		assertThat(renew(successor.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.store.authorizeCommit(new CommitRequest(successor.handle(), "corr_1", deadline())).code())
			.isEqualTo(ResultCode.LEASE_LOST);
	}

	@Test
	void acquireRetryReturnsOriginalLeaseAndToken() {
		AcquireRequest request = acquireRequest(identity("t1"), "alice", TTL_MS);
		LeaseResult first = this.store.acquire(request);
		LeaseResult retry = this.store.acquire(request);
		assertThat(retry.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(retry.replayed()).isTrue();
		assertThat(retry.lease().leaseId()).isEqualTo(first.lease().leaseId());
		assertThat(retry.lease().fencingToken()).isEqualTo(first.lease().fencingToken());
		assertThat(retry.currentState()).isEqualTo(LeaseState.ACTIVE);
		assertThat(this.store.resolve(ResolveRequest.of(request, deadline())).lease().leaseId())
			.isEqualTo(first.lease().leaseId());
	}

	@Test
	void replayedAcquireOfTerminalLeaseReportsTerminalStateAndAllocatesNothing() {
		AcquireRequest request = acquireRequest(identity("t1"), "alice", TTL_MS);
		LeaseRecord lease = this.store.acquire(request).lease();
		release(lease.handle());
		LeaseResult replay = this.store.acquire(request);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.currentState()).isEqualTo(LeaseState.RELEASED);
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline())).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	/**
	 * Issue 15: the replay state is the lease's actual terminal state for the whole idempotency retention, however
	 * many newer leases of the identity pushed it out of the bounded history (default length 16).
	 */
	@Test
	void replayedAcquireReportsReleasedAfterHistoryMovedOn() {
		AcquireRequest request = acquireRequest(identity("t1"), "alice", TTL_MS);
		LeaseRecord first = this.store.acquire(request).lease();
		assertThat(release(first.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		for (int i = 0; i < 20; i++) {
			assertThat(release(acquired(identity("t1"), "bob").handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		}
		LeaseResult replay = this.store.acquire(request);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.lease().leaseId()).isEqualTo(first.leaseId());
		assertThat(replay.currentState()).isEqualTo(LeaseState.RELEASED);
	}

	/**
	 * Issue 15: list cursors are opaque (no lock key or key digest recoverable from them) and tamper-evident (an
	 * altered cursor, or one issued for another filter, is invalid_lease_request).
	 */
	@Test
	void listCursorIsOpaqueAndTamperEvident() {
		for (int i = 0; i < 3; i++) {
			acquired(identity("t" + i), "alice");
		}
		ProgramScope scope = identity("t0").scope();
		LeasePage page = this.store.list(new ListRequest(new ListFilter.ByProgram(scope), null, 1, "c", deadline()));
		String cursor = page.nextCursor();
		assertThat(cursor).isNotNull();
		byte[] raw = Base64.getUrlDecoder().decode(cursor);
		String decoded = new String(raw, StandardCharsets.ISO_8859_1);
		for (LeaseRecord lease : page.leases()) {
			assertThat(cursor).doesNotContain(lease.identity().keyDigest());
			assertThat(decoded).doesNotContain(lease.identity().keyDigest()).doesNotContain(lease.lockKey());
		}
		raw[raw.length - 1] ^= 1;
		String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
		assertThat(this.store.list(new ListRequest(new ListFilter.ByProgram(scope), tampered, 1, "c", deadline()))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.store.list(new ListRequest(new ListFilter.ByOwner(scope, "alice"), cursor, 1, "c", deadline()))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.store.list(new ListRequest(new ListFilter.ByProgram(scope), cursor, 1, "c", deadline()))
			.code()).isEqualTo(ResultCode.LEASE_LISTED);
	}

	/** Batched renewal: one typed result per lease, in order, each with the meaning of a single renew. */
	@Test
	void renewAllAnswersPerLease() {
		LeaseRecord a = acquired(identity("t1"), "alice");
		LeaseRecord b = acquired(identity("t2"), "alice");
		LeaseRecord c = acquired(identity("t3"), "bob");
		assertThat(release(b.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		List<LeaseResult> results = this.store.renewAll(List.of(
				new RenewRequest(a.handle(), Identifiers.generate("request"), deadline()),
				new RenewRequest(b.handle(), Identifiers.generate("request"), deadline()),
				new RenewRequest(c.handle(), Identifiers.generate("request"), Instant.now().minusSeconds(1)),
				new RenewRequest(c.handle(), Identifiers.generate("request"), deadline())));
		assertThat(results).extracting(LeaseResult::code).containsExactly(ResultCode.LEASE_RENEWED,
				ResultCode.LEASE_LOST, ResultCode.DEADLINE_EXCEEDED, ResultCode.LEASE_RENEWED);
		assertThat(results.get(0).lease().fencingToken()).isEqualTo(a.fencingToken());
		assertThat(results.get(3).lease().leaseId()).isEqualTo(c.leaseId());
	}

	@Test
	void duplicateRequestIdWithChangedBodyIsIdempotencyConflictWithoutMutation() {
		AcquireRequest request = acquireRequest(identity("t1"), "alice", TTL_MS);
		LeaseRecord lease = this.store.acquire(request).lease();
		AcquireRequest changed = new AcquireRequest(request.identity(), request.requestId(), deadline(),
				request.owner(), TTL_MS + 1000, request.maximumLifetimeMs(), request.executionId(), request.jobId(),
				request.traceId(), request.metadata());
		assertThat(this.store.acquire(changed).code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		RenewRequest renew = new RenewRequest(lease.handle(), "request_renew_1", deadline());
		LeaseResult renewed = this.store.renew(renew);
		LeaseResult renewReplay = this.store.renew(renew);
		assertThat(renewReplay.replayed()).isTrue();
		assertThat(renewReplay.lease().expiresAt()).isEqualTo(renewed.lease().expiresAt());
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline())).lease())
			.isEqualTo(renewed.lease());
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
	void listByProgramOwnerAndTargetPagesInStableOrder() {
		for (int i = 0; i < 7; i++) {
			acquired(identity("t" + i), (i % 2 == 0) ? "alice" : "bob");
		}
		ProgramScope scope = identity("t0").scope();
		List<String> seen = new ArrayList<>();
		String cursor = null;
		do {
			LeasePage page = this.store.list(new ListRequest(new ListFilter.ByProgram(scope), cursor, 3, "c", deadline()));
			assertThat(page.code()).isEqualTo(ResultCode.LEASE_LISTED);
			assertThat(page.leases().size()).isLessThanOrEqualTo(3);
			page.leases().forEach(l -> seen.add(l.lockKey()));
			cursor = page.nextCursor();
		}
		while (cursor != null);
		assertThat(seen).hasSize(7).doesNotHaveDuplicates().isSorted();
		assertThat(this.store.list(new ListRequest(new ListFilter.ByOwner(scope, "alice"), null, 100, "c", deadline()))
			.leases()).hasSize(4);
		assertThat(this.store
			.list(new ListRequest(new ListFilter.ByTarget(scope, "starintel-target", "t3"), null, 100, "c", deadline()))
			.leases()).hasSize(1);
		ProgramScope other = ProgramScope.of("tenant-kit", this.program + "x");
		assertThat(this.store.list(new ListRequest(new ListFilter.ByProgram(other), null, 100, "c", deadline())).leases())
			.isEmpty();
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

	@Test
	void adminOperationsAreIdempotentByRequestId() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		AdminRequest revoke = admin(Operation.REVOKE, lease);
		LeaseResult first = this.store.revoke(revoke);
		LeaseResult replay = this.store.revoke(revoke);
		assertThat(first.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.currentState()).isEqualTo(LeaseState.REVOKED);
		AdminRequest changed = new AdminRequest(Operation.REVOKE, lease.identity(), revoke.requestId(), deadline(),
				lease.leaseId(), lease.fencingToken(), "prn_admin", "key_admin", "another reason");
		assertThat(this.store.revoke(changed).code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
	}

	@Test
	void inspectByLeaseIdStaysInsideItsProgramScope() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		assertThat(this.store.inspect(InspectRequest.byLeaseId(lease.identity().scope(), lease.leaseId(), "c", deadline()))
			.lease()).isEqualTo(lease);
		ProgramScope other = ProgramScope.of("tenant-kit", this.program + "x");
		assertThat(this.store.inspect(InspectRequest.byLeaseId(other, lease.leaseId(), "c", deadline())).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void renewalNeverPassesMaximumLifetime() {
		AcquireRequest request = new AcquireRequest(identity("t1"), Identifiers.generate("request"), deadline(),
				new LeaseOwner("alice", "c", "k", "i"), TTL_MS, 5_000, "e", "j", "t", null);
		LeaseRecord lease = this.store.acquire(request).lease();
		assertThat(lease.expiresAt()).isEqualTo(lease.acquiredAt().plusMillis(5_000));
		LeaseResult renewed = renew(lease.handle());
		assertThat(renewed.lease().expiresAt()).isEqualTo(lease.lifetimeEnd());
	}

}
