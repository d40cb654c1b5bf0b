package io.starintel.lease.test.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.LeaseStore;

import static io.starintel.lease.test.conformance.SweepFixture.SHORT_TTL_MS;
import static io.starintel.lease.test.conformance.SweepFixture.TEST_POLICY;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of the lease limits: active leases per program and per tenant (a grant beyond them is
 * {@code lease_rate_limited} and changes nothing; expired leases do not count; a replay is not limited) and the
 * default minimum TTL.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class ActiveLeaseLimitConformance {

	private SweepFixture kit;

	@BeforeEach
	void setUpFixture(SweepStoreUnderTest underTest) {
		this.kit = new SweepFixture(underTest);
	}

	@Test
	void grantBeyondTheProgramLimitIsRateLimitedAndChangesNothing() {
		LeaseStore limited = this.kit.createStore(TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(3,
				Map.of())));
		List<LeaseRecord> held = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			held.add(this.kit.acquired(limited, this.kit.identity("t" + i), 60_000));
		}
		LeaseResult refused = limited.acquire(this.kit.acquireRequest(this.kit.identity("t3"), "alice", 60_000));
		assertThat(refused.code()).isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		assertThat(refused.reason()).isEqualTo(Reason.ACTIVE_LEASE_LIMIT_REACHED);
		assertThat(refused.code().retryable()).isTrue();
		assertThat(refused.lease()).isNull();
		assertThat(this.kit.inspectFinds(this.kit.identity("t3"))).isFalse();
		// an identity already held is a conflict, not a quota refusal
		assertThat(limited.acquire(this.kit.acquireRequest(this.kit.identity("t0"), "bob", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_CONFLICT);
		// another program has its own count
		LockIdentity elsewhere = LockIdentity.of("tenant-kit", this.kit.program() + "-b", "starintel-target", "t0",
				"usernamegen", "default", null);
		this.kit.acquired(limited, elsewhere, 60_000);
		// releasing one frees a slot
		assertThat(limited.release(new ReleaseRequest(held.get(0).handle(), Identifiers.generate("request"),
				this.kit.deadline())).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord fourth = this.kit.acquired(limited, this.kit.identity("t3"), 60_000);
		assertThat(fourth.fencingToken()).isPositive();
	}

	@Test
	void expiredLeasesDoNotCountTowardsTheLimitEvenBeforeTheyAreSwept() {
		LeaseStore limited = this.kit.createStore(TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(2,
				Map.of())));
		this.kit.acquired(limited, this.kit.identity("short-1"), SHORT_TTL_MS);
		this.kit.acquired(limited, this.kit.identity("short-2"), SHORT_TTL_MS);
		assertThat(limited.acquire(this.kit.acquireRequest(this.kit.identity("t3"), "alice", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		this.kit.advanceBackendTime(SHORT_TTL_MS + 50);
		this.kit.acquired(limited, this.kit.identity("t3"), 60_000);
		this.kit.acquired(limited, this.kit.identity("t4"), 60_000);
		assertThat(limited.acquire(this.kit.acquireRequest(this.kit.identity("t5"), "alice", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_RATE_LIMITED);
	}

	@Test
	void replayOfAGrantedAcquireIsNotRateLimited() {
		LeaseStore limited = this.kit.createStore(TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(1,
				Map.of())));
		AcquireRequest request = this.kit.acquireRequest(this.kit.identity("t1"), "alice", 60_000);
		LeaseRecord lease = limited.acquire(request).lease();
		LeaseResult replay = limited.acquire(request);
		assertThat(replay.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(replay.replayed()).isTrue();
		assertThat(replay.lease().leaseId()).isEqualTo(lease.leaseId());
	}

	@Test
	void aTenantLimitReplacesTheProgramLimitForThatTenantsPrograms() {
		LeaseStore limited = this.kit.createStore(
				TEST_POLICY.withActiveLeaseLimits(new ActiveLeaseLimits(5, Map.of("tenant-kit", 1L))));
		this.kit.acquired(limited, this.kit.identity("t1"), 60_000);
		assertThat(limited.acquire(this.kit.acquireRequest(this.kit.identity("t2"), "alice", 60_000)).code())
			.isEqualTo(ResultCode.LEASE_RATE_LIMITED);
		LockIdentity otherTenant = LockIdentity.of("tenant-other", this.kit.program(), "starintel-target", "t1",
				"usernamegen", "default", null);
		LockIdentity otherTenant2 = LockIdentity.of("tenant-other", this.kit.program(), "starintel-target", "t2",
				"usernamegen", "default", null);
		this.kit.acquired(limited, otherTenant, 60_000);
		this.kit.acquired(limited, otherTenant2, 60_000);
	}

	@Test
	void minimumTtlIsOneSecondExclusiveByDefault() {
		LeaseStore defaults = this.kit.createStore(LeasePolicy.defaults());
		LeaseResult atMinimum = defaults.acquire(this.kit.acquireRequest(this.kit.identity("t1"), "alice", 1_000));
		assertThat(atMinimum.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(atMinimum.detail()).startsWith("ttl_ms:");
		assertThat(this.kit.inspectFinds(this.kit.identity("t1"))).isFalse();
		this.kit.acquired(defaults, this.kit.identity("t1"), 1_001);
	}

}
