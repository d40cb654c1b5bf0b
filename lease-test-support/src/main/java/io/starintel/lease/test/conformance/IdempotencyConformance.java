package io.starintel.lease.test.conformance;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;

import static io.starintel.lease.test.conformance.LeaseStoreFixture.TTL_MS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of idempotency: a retry with the same request id replays the original outcome (also after the lease
 * ended and its history moved on), and the same request id with another body is {@code idempotency_conflict} without
 * mutation.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class IdempotencyConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	@Test
	void acquireRetryReturnsOriginalLeaseAndToken() {
		AcquireRequest request = this.kit.acquireRequest(this.kit.identity("t1"), "alice", TTL_MS);
		LeaseResult first = this.kit.store().acquire(request);
		LeaseResult retry = this.kit.store().acquire(request);
		assertThat(retry.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(retry.replayed()).isTrue();
		assertThat(retry.lease().leaseId()).isEqualTo(first.lease().leaseId());
		assertThat(retry.lease().fencingToken()).isEqualTo(first.lease().fencingToken());
		assertThat(retry.currentState()).isEqualTo(LeaseState.ACTIVE);
		assertThat(this.kit.store().resolve(ResolveRequest.of(request, this.kit.deadline())).lease().leaseId())
			.isEqualTo(first.lease().leaseId());
	}

	/**
	 * Contract: a request id is globally unique. The same principal's request id granted on one identity is
	 * {@code idempotency_conflict} on another identity of the program, and grants nothing there.
	 */
	@Test
	void acquireRequestIdReusedOnAnotherIdentityIsAConflict() {
		AcquireRequest first = this.kit.acquireRequest(this.kit.identity("t1"), "alice", TTL_MS);
		assertThat(this.kit.store().acquire(first).code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		AcquireRequest other = new AcquireRequest(this.kit.identity("t2"), first.requestId(), first.deadlineAt(),
				first.owner(), first.ttlMs(), first.maximumLifetimeMs(), first.executionId(), first.jobId(),
				first.traceId(), first.metadata());
		LeaseResult reused = this.kit.store().acquire(other);
		assertThat(reused.code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		assertThat(this.kit.inspect(this.kit.identity("t2")).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(this.kit.store().acquire(first).replayed()).isTrue();
		// resolving the request id on the other identity finds nothing there (never the first identity's lease)
		assertThat(this.kit.store().resolve(ResolveRequest.of(other, first.deadlineAt())).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(this.kit.store().resolve(ResolveRequest.of(first, first.deadlineAt())).code())
			.isEqualTo(ResultCode.LEASE_ACQUIRED);
	}

	@Test
	void replayedAcquireOfTerminalLeaseReportsTerminalStateAndAllocatesNothing() {
		AcquireRequest request = this.kit.acquireRequest(this.kit.identity("t1"), "alice", TTL_MS);
		LeaseRecord lease = this.kit.store().acquire(request).lease();
		this.kit.release(lease.handle());
		LeaseResult replay = this.kit.store().acquire(request);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.currentState()).isEqualTo(LeaseState.RELEASED);
		assertThat(this.kit.inspect(this.kit.identity("t1")).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	/**
	 * Issue 15: the replay state is the lease's actual terminal state for the whole idempotency retention, however
	 * many newer leases of the identity pushed it out of the bounded history (default length 16).
	 */
	@Test
	void replayedAcquireReportsReleasedAfterHistoryMovedOn() {
		AcquireRequest request = this.kit.acquireRequest(this.kit.identity("t1"), "alice", TTL_MS);
		LeaseRecord first = this.kit.store().acquire(request).lease();
		assertThat(this.kit.release(first.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		for (int i = 0; i < 20; i++) {
			assertThat(this.kit.release(this.kit.acquired(this.kit.identity("t1"),
					"bob").handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		}
		LeaseResult replay = this.kit.store().acquire(request);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.lease().leaseId()).isEqualTo(first.leaseId());
		assertThat(replay.currentState()).isEqualTo(LeaseState.RELEASED);
	}

	/** The new TTL is part of the request digest: the same request id with another TTL is idempotency_conflict. */
	@Test
	void renewRetryWithChangedTtlIsIdempotencyConflict() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		RenewRequest first = new RenewRequest(lease.handle(), "request_renew_ttl", this.kit.deadline(), 90_000L);
		LeaseResult renewed = this.kit.store().renew(first);
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		LeaseResult replay = this.kit.store().renew(new RenewRequest(lease.handle(), "request_renew_ttl",
				this.kit.deadline(), 90_000L));
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.lease().expiresAt()).isEqualTo(renewed.lease().expiresAt());
		assertThat(this.kit.store().renew(new RenewRequest(lease.handle(), "request_renew_ttl", this.kit.deadline(),
				91_000L)).code())
			.isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		assertThat(this.kit.store().renew(new RenewRequest(lease.handle(), "request_renew_ttl",
				this.kit.deadline())).code())
			.isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		assertThat(this.kit.inspect(this.kit.identity("t1")).lease())
			.isEqualTo(renewed.lease());
	}

	@Test
	void duplicateRequestIdWithChangedBodyIsIdempotencyConflictWithoutMutation() {
		AcquireRequest request = this.kit.acquireRequest(this.kit.identity("t1"), "alice", TTL_MS);
		LeaseRecord lease = this.kit.store().acquire(request).lease();
		AcquireRequest changed = new AcquireRequest(request.identity(), request.requestId(), this.kit.deadline(),
				request.owner(), TTL_MS + 1000, request.maximumLifetimeMs(), request.executionId(), request.jobId(),
				request.traceId(), request.metadata());
		assertThat(this.kit.store().acquire(changed).code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
		RenewRequest renew = new RenewRequest(lease.handle(), "request_renew_1", this.kit.deadline());
		LeaseResult renewed = this.kit.store().renew(renew);
		LeaseResult renewReplay = this.kit.store().renew(renew);
		assertThat(renewReplay.replayed()).isTrue();
		assertThat(renewReplay.lease().expiresAt()).isEqualTo(renewed.lease().expiresAt());
		assertThat(this.kit.inspect(this.kit.identity("t1")).lease())
			.isEqualTo(renewed.lease());
	}

	@Test
	void adminOperationsAreIdempotentByRequestId() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		AdminRequest revoke = this.kit.admin(Operation.REVOKE, lease);
		LeaseResult first = this.kit.store().revoke(revoke);
		LeaseResult replay = this.kit.store().revoke(revoke);
		assertThat(first.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.currentState()).isEqualTo(LeaseState.REVOKED);
		AdminRequest changed = new AdminRequest(Operation.REVOKE, lease.identity(), revoke.requestId(),
				this.kit.deadline(),
				lease.leaseId(), lease.fencingToken(), "prn_admin", "key_admin", "another reason");
		assertThat(this.kit.store().revoke(changed).code()).isEqualTo(ResultCode.IDEMPOTENCY_CONFLICT);
	}

}
