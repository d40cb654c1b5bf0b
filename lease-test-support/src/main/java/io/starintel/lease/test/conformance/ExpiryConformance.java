package io.starintel.lease.test.conformance;

import java.time.Instant;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ResultCode;

import static io.starintel.lease.test.conformance.LeaseStoreFixture.TTL_MS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of time: an expired lease is unusable and no renewal revives it, a request past its deadline mutates
 * nothing, and a TTL outside the policy is invalid.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class ExpiryConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	@Test
	void expiryMakesLeaseUnusableAndRenewCannotReviveIt() {
		LeaseResult result = this.kit.store().acquire(this.kit.acquireRequest(this.kit.identity("t1"), "alice", 2_000));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		this.kit.advanceBackendTime(2_100);
		assertThat(this.kit.renew(result.lease().handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.store().authorizeCommit(new CommitRequest(result.lease().handle(), "corr_1",
				this.kit.deadline())).code())
			.isEqualTo(ResultCode.LEASE_LOST);
		LeaseRecord next = this.kit.acquired(this.kit.identity("t1"), "bob");
		assertThat(next.fencingToken()).isGreaterThan(result.lease().fencingToken());
	}

	@Test
	void pastDeadlineMutatesNothing() {
		AcquireRequest request = new AcquireRequest(this.kit.identity("t1"), "request_late",
				Instant.now().minusSeconds(1),
				new LeaseOwner("alice", "c", "k", "i"), TTL_MS, 300_000, "e", "j", "t", null);
		assertThat(this.kit.store().acquire(request).code()).isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(this.kit.inspect(this.kit.identity("t1")).code())
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	@Test
	void ttlOutsidePolicyIsInvalid() {
		LeaseResult tooShort = this.kit.store().acquire(this.kit.acquireRequest(this.kit.identity("t1"), "alice", 10));
		assertThat(tooShort.code()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
		assertThat(tooShort.detail()).startsWith("ttl_ms:");
		assertThat(this.kit.store().acquire(this.kit.acquireRequest(this.kit.identity("t1"), "alice",
				100L * 24 * 3600 * 1000)).code())
			.isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
	}

}
