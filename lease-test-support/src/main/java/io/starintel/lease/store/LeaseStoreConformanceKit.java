package io.starintel.lease.store;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.internal.AttachedKeys;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.InvalidLeaseRequestException;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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

	protected LeaseResult renewWithTtl(LeaseHandle handle, long ttlMs) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline(), ttlMs));
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

	/**
	 * Renew with a new TTL (keep-alive with new_ttl): the TTL becomes the lease's effective ttl_ms, expires_at =
	 * min(now + ttl, acquired_at + maximum_lifetime_ms), the token and lease id stay, and a later renewal without a
	 * TTL keeps the new one.
	 */
	@Test
	void renewWithNewTtlChangesTtlWithinMaximumLifetime() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		LeaseResult longer = renewWithTtl(lease.handle(), 120_000L);
		assertThat(longer.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(longer.lease().ttlMs()).isEqualTo(120_000L);
		assertThat(longer.lease().expiresAt()).isEqualTo(longer.lease().renewedAt().plusMillis(120_000));
		assertThat(longer.lease().fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(longer.lease().leaseId()).isEqualTo(lease.leaseId());
		LeaseResult kept = renew(lease.handle());
		assertThat(kept.lease().ttlMs()).isEqualTo(120_000L);
		assertThat(kept.lease().expiresAt()).isEqualTo(kept.lease().renewedAt().plusMillis(120_000));
		LeaseResult shorter = renewWithTtl(lease.handle(), 5_000L);
		assertThat(shorter.lease().ttlMs()).isEqualTo(5_000L);
		assertThat(shorter.lease().expiresAt()).isEqualTo(shorter.lease().renewedAt().plusMillis(5_000));
		// the maximum lifetime (300 s from acquisition) caps a TTL that would reach past it
		LeaseResult capped = renewWithTtl(lease.handle(), 600_000L);
		assertThat(capped.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(capped.lease().expiresAt()).isEqualTo(lease.lifetimeEnd());
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline())).lease())
			.isEqualTo(capped.lease());
	}

	/** A new TTL outside policy (minimum_ttl_ms < ttl_ms <= maximum_ttl_ms) is invalid and mutates nothing. */
	@Test
	void renewWithOutOfPolicyTtlIsInvalidWithoutMutation() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		assertThat(renewWithTtl(lease.handle(), 600_001L).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(renewWithTtl(lease.handle(), 1L).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.store.renewAll(List.of(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				deadline(), 600_001L))).get(0).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline())).lease())
			.isEqualTo(lease);
	}

	/** The new TTL is part of the request digest: the same request id with another TTL is idempotency_conflict. */
	@Test
	void renewRetryWithChangedTtlIsIdempotencyConflict() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		RenewRequest first = new RenewRequest(lease.handle(), "request_renew_ttl", deadline(), 90_000L);
		LeaseResult renewed = this.store.renew(first);
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		LeaseResult replay = this.store.renew(new RenewRequest(lease.handle(), "request_renew_ttl", deadline(), 90_000L));
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.lease().expiresAt()).isEqualTo(renewed.lease().expiresAt());
		assertThat(this.store.renew(new RenewRequest(lease.handle(), "request_renew_ttl", deadline(), 91_000L)).code())
			.isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		assertThat(this.store.renew(new RenewRequest(lease.handle(), "request_renew_ttl", deadline())).code())
			.isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		assertThat(this.store.inspect(InspectRequest.byIdentity(identity("t1"), "corr_1", deadline())).lease())
			.isEqualTo(renewed.lease());
	}

	/** Batched renewal carries each lease's own new TTL. */
	@Test
	void renewAllAppliesEachNewTtl() {
		LeaseRecord a = acquired(identity("t1"), "alice");
		LeaseRecord b = acquired(identity("t2"), "alice");
		List<LeaseResult> results = this.store.renewAll(List.of(
				new RenewRequest(a.handle(), Identifiers.generate("request"), deadline(), 30_000L),
				new RenewRequest(b.handle(), Identifiers.generate("request"), deadline())));
		assertThat(results).extracting(LeaseResult::code).containsExactly(ResultCode.LEASE_RENEWED,
				ResultCode.LEASE_RENEWED);
		assertThat(results.get(0).lease().ttlMs()).isEqualTo(30_000L);
		assertThat(results.get(0).lease().expiresAt()).isEqualTo(results.get(0).lease().renewedAt().plusMillis(30_000));
		assertThat(results.get(1).lease().ttlMs()).isEqualTo(TTL_MS);
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

	// ---- attached keys (docs/attachments.md) --------------------------------------------------------------------

	/** A store like {@link #createStore()} whose policy allows at most {@code maximumKeys} keys per lease. */
	protected abstract LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys);

	protected AttachmentResult put(LeaseHandle handle, String name, String value) {
		return this.store.putAttached(new AttachPutRequest(handle, name, value, Identifiers.generate("request"),
				deadline()));
	}

	protected AttachmentResult get(ProgramScope scope, String name) {
		return this.store.getAttached(new AttachGetRequest(scope, name, "corr_1", deadline()));
	}

	protected AttachmentResult listAttached(LeaseRecord lease) {
		return this.store.listAttached(new AttachListRequest(lease.identity().scope(), lease.leaseId(), "corr_1",
				deadline()));
	}

	protected AttachmentResult deleteAttached(LeaseHandle handle, String name) {
		return this.store.deleteAttached(new AttachDeleteRequest(handle, name, Identifiers.generate("request"),
				deadline()));
	}

	private void assertGone(LeaseRecord lease, String... names) {
		for (String name : names) {
			AttachmentResult read = get(lease.identity().scope(), name);
			assertThat(read.code()).as(name).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(read.reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
			assertThat(read.value()).isNull();
		}
		assertThat(listAttached(lease).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void attachedKeysPutGetListDelete() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		ProgramScope scope = lease.identity().scope();
		assertThat(put(lease.handle(), "progress", "41").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(put(lease.handle(), "progress", "42").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(put(lease.handle(), "claim.marker_1", "").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		AttachmentResult read = get(scope, "progress");
		assertThat(read.code()).isEqualTo(ResultCode.ATTACHMENT_READ);
		assertThat(read.value()).isEqualTo("42");
		assertThat(read.leaseId()).isEqualTo(lease.leaseId());
		assertThat(get(scope, "claim.marker_1").value()).isEmpty();
		AttachmentResult listed = listAttached(lease);
		assertThat(listed.code()).isEqualTo(ResultCode.ATTACHMENTS_LISTED);
		assertThat(listed.names()).containsExactly("claim.marker_1", "progress");
		assertThat(deleteAttached(lease.handle(), "progress").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		AttachmentResult again = deleteAttached(lease.handle(), "progress");
		assertThat(again.code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(again.reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
		assertThat(get(scope, "progress").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(listAttached(lease).names()).containsExactly("claim.marker_1");
		assertThat(get(ProgramScope.of("tenant-kit", this.program + "x"), "claim.marker_1").code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void putWithLeaseRequiresTheExactActiveLease() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		LeaseHandle h = lease.handle();
		AttachmentResult stale = put(new LeaseHandle(h.identity(), h.leaseId(), h.ownerPrincipalId(),
				h.serviceInstanceId(), h.fencingToken() + 1), "k1", "v");
		assertThat(stale.code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(put(new LeaseHandle(h.identity(), h.leaseId(), "mallory", h.serviceInstanceId(), h.fencingToken()),
				"k1", "v").code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(get(lease.identity().scope(), "k1").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(release(h).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(put(h, "k1", "v").code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(deleteAttached(h, "k1").code()).isEqualTo(ResultCode.LEASE_LOST);
	}

	@Test
	void releaseDeletesEveryAttachedKeyInTheTransition() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		for (int i = 0; i < 20; i++) {
			assertThat(put(lease.handle(), "k" + i, "v" + i).code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		assertThat(release(lease.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertGone(lease, "k0", "k7", "k19");
		LeaseRecord next = acquired(identity("t1"), "bob");
		assertThat(listAttached(next).names()).isEmpty();
		assertThat(put(next.handle(), "k7", "again").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(get(next.identity().scope(), "k7").value()).isEqualTo("again");
	}

	@Test
	void revokeAndForceReleaseDeleteEveryAttachedKey() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		put(first.handle(), "a", "1");
		assertThat(this.store.revoke(admin(Operation.REVOKE, first)).code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertGone(first, "a");
		LeaseRecord second = acquired(identity("t1"), "bob");
		put(second.handle(), "a", "2");
		assertThat(this.store.forceRelease(admin(Operation.FORCE_RELEASE, second)).code())
			.isEqualTo(ResultCode.LEASE_RELEASED);
		assertGone(second, "a");
	}

	@Test
	void expiryDeletesEveryAttachedKey() {
		LeaseResult result = this.store.acquire(acquireRequest(identity("t1"), "alice", 2_000));
		LeaseRecord lease = result.lease();
		put(lease.handle(), "a", "1");
		put(lease.handle(), "b", "2");
		advanceBackendTime(2_100);
		assertGone(lease, "a", "b");
		assertThat(put(lease.handle(), "c", "3").code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseRecord other = acquired(identity("t2"), "bob");
		assertThat(put(other.handle(), "a", "mine").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
	}

	@Test
	void aKeyBelongsToAtMostOneLease() {
		LeaseRecord a = acquired(identity("t1"), "alice");
		LeaseRecord b = acquired(identity("t2"), "bob");
		put(a.handle(), "shared", "from-a");
		AttachmentResult refused = put(b.handle(), "shared", "from-b");
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(refused.reason()).isEqualTo(Reason.ATTACHED_TO_ANOTHER_LEASE);
		assertThat(deleteAttached(b.handle(), "shared").reason()).isEqualTo(Reason.ATTACHMENT_NOT_FOUND);
		assertThat(get(a.identity().scope(), "shared").value()).isEqualTo("from-a");
		assertThat(deleteAttached(a.handle(), "shared").code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(put(b.handle(), "shared", "from-b").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(get(a.identity().scope(), "shared").leaseId()).isEqualTo(b.leaseId());
		assertThat(listAttached(a).names()).isEmpty();
	}

	@Test
	void aLateCleanupNeverTouchesASuccessorsKeys() {
		LeaseRecord first = acquired(identity("t1"), "alice");
		put(first.handle(), "k", "first");
		ReleaseRequest releaseFirst = new ReleaseRequest(first.handle(), Identifiers.generate("request"), deadline());
		assertThat(this.store.release(releaseFirst).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord successor = acquired(identity("t1"), "bob");
		put(successor.handle(), "k", "second");
		assertThat(this.store.release(releaseFirst).replayed()).isTrue();
		assertThat(release(first.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.store.revoke(admin(Operation.REVOKE, first)).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(deleteAttached(first.handle(), "k").code()).isEqualTo(ResultCode.LEASE_LOST);
		AttachmentResult read = get(successor.identity().scope(), "k");
		assertThat(read.value()).isEqualTo("second");
		assertThat(read.leaseId()).isEqualTo(successor.leaseId());
		assertThat(listAttached(successor).names()).containsExactly("k");
	}

	@Test
	void attachedKeysPerLeaseAreBounded() {
		this.store = createStoreWithAttachedKeyLimit(3);
		LeaseRecord lease = acquired(identity("t1"), "alice");
		for (String name : List.of("a", "b", "c")) {
			assertThat(put(lease.handle(), name, "v").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		}
		AttachmentResult refused = put(lease.handle(), "d", "v");
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		assertThat(refused.reason()).isEqualTo(Reason.ATTACHED_KEY_LIMIT_REACHED);
		assertThat(put(lease.handle(), "c", "replaced").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		deleteAttached(lease.handle(), "a");
		assertThat(put(lease.handle(), "d", "v").code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(listAttached(lease).names()).containsExactly("b", "c", "d");
	}

	@Test
	void attachedNamesAndValuesAreValidated() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		for (String bad : new String[] { "", "a*b", "a?", "[a]", "a/b", "..", "a..b", ".hidden", "a:b", "a b",
				"a\u001fb", "x".repeat(AttachedKeys.MAX_NAME_LENGTH + 1) }) {
			assertThat(AttachedKeys.isValidName(bad)).as(bad).isFalse();
			assertThatExceptionOfType(InvalidLeaseRequestException.class)
				.isThrownBy(() -> new AttachPutRequest(lease.handle(), bad, "v", "request_1", deadline()));
		}
		assertThat(AttachedKeys.isValidName("x".repeat(AttachedKeys.MAX_NAME_LENGTH))).isTrue();
		AttachmentResult large = put(lease.handle(), "big", "x".repeat(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES + 1));
		assertThat(large.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(large.detail()).contains("attached_value").doesNotContain("xxx");
		assertThat(put(lease.handle(), "big", "x".repeat(AttachedKeys.DEFAULT_MAXIMUM_VALUE_BYTES)).code())
			.isEqualTo(ResultCode.ATTACHMENT_STORED);
	}

	@Test
	void attachedKeyMutationsAreIdempotentByRequestId() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		AttachPutRequest request = new AttachPutRequest(lease.handle(), "k", "v1", Identifiers.generate("request"),
				deadline());
		AttachmentResult first = this.store.putAttached(request);
		put(lease.handle(), "k", "v2");
		AttachmentResult replay = this.store.putAttached(request);
		assertThat(first.replayed()).isFalse();
		assertThat(replay.code()).isEqualTo(ResultCode.ATTACHMENT_STORED);
		assertThat(replay.replayed()).isTrue();
		assertThat(get(lease.identity().scope(), "k").value()).isEqualTo("v2");
		AttachPutRequest changed = new AttachPutRequest(lease.handle(), "k", "v3", request.requestId(), deadline());
		assertThat(this.store.putAttached(changed).code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		AttachDeleteRequest delete = new AttachDeleteRequest(lease.handle(), "k", Identifiers.generate("request"),
				deadline());
		assertThat(this.store.deleteAttached(delete).code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		AttachmentResult deleteReplay = this.store.deleteAttached(delete);
		assertThat(deleteReplay.code()).isEqualTo(ResultCode.ATTACHMENT_DELETED);
		assertThat(deleteReplay.replayed()).isTrue();
	}

	@Test
	void attachedKeyDeadlinesAreCheckedAtBackendTime() {
		LeaseRecord lease = acquired(identity("t1"), "alice");
		Instant past = Instant.now().minusSeconds(5);
		assertThat(this.store.putAttached(new AttachPutRequest(lease.handle(), "k", "v", "request_p", past)).code())
			.isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(this.store.getAttached(new AttachGetRequest(lease.identity().scope(), "k", "c", past)).code())
			.isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(listAttached(lease).names()).isEmpty();
		Instant farAhead = Instant.now().plus(Duration.ofDays(1));
		assertThat(this.store.putAttached(new AttachPutRequest(lease.handle(), "k", "v", "request_f", farAhead))
			.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
	}

}
