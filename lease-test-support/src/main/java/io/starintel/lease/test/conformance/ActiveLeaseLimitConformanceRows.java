package io.starintel.lease.test.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease-limit rows of {@link LeaseStoreSweepConformanceKit}: active leases per program and per tenant (expired
 * leases do not count, replays are not refused) and the default minimum TTL.
 */
abstract class ActiveLeaseLimitConformanceRows extends SweepConformanceFixture {

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
