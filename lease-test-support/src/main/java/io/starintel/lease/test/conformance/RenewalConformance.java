package io.starintel.lease.test.conformance;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;

import static io.starintel.lease.test.conformance.LeaseStoreFixture.TTL_MS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of renew-if-owner: every field of the handle, batched renewal, a new TTL within policy and the maximum
 * lifetime.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class RenewalConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	@Test
	void renewIfOwnerKeepsTokenAndRequiresEveryField() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseHandle h = lease.handle();
		assertThat(this.kit.renew(new LeaseHandle(h.identity(), "lease_other", h.ownerPrincipalId(),
				h.serviceInstanceId(),
				h.fencingToken())).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.renew(new LeaseHandle(h.identity(), h.leaseId(), "mallory", h.serviceInstanceId(),
				h.fencingToken())).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.renew(new LeaseHandle(h.identity(), h.leaseId(), h.ownerPrincipalId(), "instance-x",
				h.fencingToken())).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.renew(new LeaseHandle(h.identity(), h.leaseId(), h.ownerPrincipalId(),
				h.serviceInstanceId(),
				h.fencingToken() + 1)).code()).isEqualTo(ResultCode.LEASE_LOST);
		LeaseResult renewed = this.kit.renew(h);
		assertThat(renewed.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(renewed.lease().fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(renewed.lease().leaseId()).isEqualTo(lease.leaseId());
	}

	/** Batched renewal: one typed result per lease, in order, each with the meaning of a single renew. */
	@Test
	void renewAllAnswersPerLease() {
		LeaseRecord a = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseRecord b = this.kit.acquired(this.kit.identity("t2"), "alice");
		LeaseRecord c = this.kit.acquired(this.kit.identity("t3"), "bob");
		assertThat(this.kit.release(b.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		List<LeaseResult> results = this.kit.store().renewAll(List.of(
				new RenewRequest(a.handle(), Identifiers.generate("request"), this.kit.deadline()),
				new RenewRequest(b.handle(), Identifiers.generate("request"), this.kit.deadline()),
				new RenewRequest(c.handle(), Identifiers.generate("request"), Instant.now().minusSeconds(1)),
				new RenewRequest(c.handle(), Identifiers.generate("request"), this.kit.deadline())));
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
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseResult longer = this.kit.renewWithTtl(lease.handle(), 120_000L);
		assertThat(longer.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(longer.lease().ttlMs()).isEqualTo(120_000L);
		assertThat(longer.lease().expiresAt()).isEqualTo(longer.lease().renewedAt().plusMillis(120_000));
		assertThat(longer.lease().fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(longer.lease().leaseId()).isEqualTo(lease.leaseId());
		LeaseResult kept = this.kit.renew(lease.handle());
		assertThat(kept.lease().ttlMs()).isEqualTo(120_000L);
		assertThat(kept.lease().expiresAt()).isEqualTo(kept.lease().renewedAt().plusMillis(120_000));
		LeaseResult shorter = this.kit.renewWithTtl(lease.handle(), 5_000L);
		assertThat(shorter.lease().ttlMs()).isEqualTo(5_000L);
		assertThat(shorter.lease().expiresAt()).isEqualTo(shorter.lease().renewedAt().plusMillis(5_000));
		// the maximum lifetime (300 s from acquisition) caps a TTL that would reach past it
		LeaseResult capped = this.kit.renewWithTtl(lease.handle(), 600_000L);
		assertThat(capped.code()).isEqualTo(ResultCode.LEASE_RENEWED);
		assertThat(capped.lease().expiresAt()).isEqualTo(lease.lifetimeEnd());
		assertThat(this.kit.inspect(this.kit.identity("t1")).lease())
			.isEqualTo(capped.lease());
	}

	/** A new TTL outside policy (minimum_ttl_ms < ttl_ms <= maximum_ttl_ms) is invalid and mutates nothing. */
	@Test
	void renewWithOutOfPolicyTtlIsInvalidWithoutMutation() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(this.kit.renewWithTtl(lease.handle(), 600_001L).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.renewWithTtl(lease.handle(), 1L).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.store().renewAll(List.of(new RenewRequest(lease.handle(), Identifiers.generate("request"),
				this.kit.deadline(), 600_001L))).get(0).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.inspect(this.kit.identity("t1")).lease())
			.isEqualTo(lease);
	}

	/** Batched renewal carries each lease's own new TTL. */
	@Test
	void renewAllAppliesEachNewTtl() {
		LeaseRecord a = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseRecord b = this.kit.acquired(this.kit.identity("t2"), "alice");
		List<LeaseResult> results = this.kit.store().renewAll(List.of(
				new RenewRequest(a.handle(), Identifiers.generate("request"), this.kit.deadline(), 30_000L),
				new RenewRequest(b.handle(), Identifiers.generate("request"), this.kit.deadline())));
		assertThat(results).extracting(LeaseResult::code).containsExactly(ResultCode.LEASE_RENEWED,
				ResultCode.LEASE_RENEWED);
		assertThat(results.get(0).lease().ttlMs()).isEqualTo(30_000L);
		assertThat(results.get(0).lease().expiresAt()).isEqualTo(results.get(0).lease().renewedAt().plusMillis(30_000));
		assertThat(results.get(1).lease().ttlMs()).isEqualTo(TTL_MS);
	}

	@Test
	void renewalNeverPassesMaximumLifetime() {
		AcquireRequest request = new AcquireRequest(this.kit.identity("t1"), Identifiers.generate("request"),
				this.kit.deadline(),
				new LeaseOwner("alice", "c", "k", "i"), TTL_MS, TTL_MS + 300, "e", "j", "t", null);
		LeaseRecord lease = this.kit.store().acquire(request).lease();
		assertThat(lease.expiresAt()).isEqualTo(lease.acquiredAt().plusMillis(TTL_MS));
		this.kit.advanceBackendTime(500);
		LeaseResult renewed = this.kit.renew(lease.handle());
		assertThat(renewed.lease().expiresAt()).isEqualTo(lease.lifetimeEnd());
		assertThat(lease.lifetimeEnd()).isEqualTo(lease.acquiredAt().plusMillis(TTL_MS + 300));
	}

	/** A maximum lifetime below the TTL is malformed (contract: expires_at never passes the lifetime). */
	@Test
	void aMaximumLifetimeBelowTheTtlIsRefused() {
		AcquireRequest request = new AcquireRequest(this.kit.identity("t1"), Identifiers.generate("request"),
				this.kit.deadline(), new LeaseOwner("alice", "c", "k", "i"), TTL_MS, 1, "e", "j", "t", null);
		assertThat(this.kit.store().acquire(request).code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(this.kit.inspect(this.kit.identity("t1")).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

}
