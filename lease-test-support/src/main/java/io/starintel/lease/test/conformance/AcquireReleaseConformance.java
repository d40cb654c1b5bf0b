package io.starintel.lease.test.conformance;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.ResultCode;

import static io.starintel.lease.test.conformance.LeaseStoreFixture.TTL_MS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of acquire-if-free and release-if-owner: one winner with a positive token, a conflict that changes
 * nothing, release as compare-and-delete with terminal evidence, and a stale release that never touches a successor.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class AcquireReleaseConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	@Test
	void acquireIfFreeCreatesActiveLeaseWithPositiveToken() {
		LeaseRecord lease = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
		assertThat(lease.fencingToken()).isPositive();
		assertThat(lease.renewedAt()).isEqualTo(lease.acquiredAt());
		assertThat(lease.expiresAt()).isEqualTo(lease.acquiredAt().plusMillis(TTL_MS));
	}

	@Test
	void secondAcquireConflictsWithoutChangingTheLease() {
		LeaseRecord first = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseResult second = this.kit.store().acquire(this.kit.acquireRequest(this.kit.identity("t1"), "bob", TTL_MS));
		assertThat(second.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(second.lease()).isNull();
		LeaseResult inspected = this.kit.inspect(this.kit.identity("t1"));
		assertThat(inspected.lease()).isEqualTo(first);
	}

	@Test
	void releaseIfOwnerEndsLeaseAndNextAcquireGetsGreaterToken() {
		LeaseRecord first = this.kit.acquired(this.kit.identity("t1"), "alice");
		LeaseResult released = this.kit.release(first.handle());
		assertThat(released.code()).isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(released.lease().state()).isEqualTo(LeaseState.RELEASED);
		LeaseRecord second = this.kit.acquired(this.kit.identity("t1"), "bob");
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(second.leaseId()).isNotEqualTo(first.leaseId());
	}

	@Test
	void staleReleaseAfterReacquireLeavesSuccessor() {
		LeaseRecord first = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(this.kit.release(first.handle()).code()).isEqualTo(ResultCode.LEASE_RELEASED);
		LeaseRecord successor = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(this.kit.release(first.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.renew(first.handle()).code()).isEqualTo(ResultCode.LEASE_LOST);
		assertThat(this.kit.inspect(this.kit.identity("t1")).lease())
			.isEqualTo(successor);
	}

}
