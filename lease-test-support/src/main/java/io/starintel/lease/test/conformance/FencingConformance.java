package io.starintel.lease.test.conformance;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

import static io.starintel.lease.test.conformance.LeaseStoreFixture.TTL_MS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conformance of the fencing counter and fenced commits: a counter at its limit refuses acquisition, and commit
 * authorization refuses a lower token once a newer lease was granted.
 */
@ExtendWith(StoreUnderTestResolver.class)
public abstract class FencingConformance {

	private LeaseStoreFixture kit;

	@BeforeEach
	void setUpFixture(LeaseStoreUnderTest underTest) {
		this.kit = new LeaseStoreFixture(underTest);
	}

	@Test
	void counterAtLimitRefusesAcquisition() {
		this.kit.setFencingCounter(this.kit.identity("t1"), LeaseRecord.MAX_FENCING_TOKEN - 1);
		LeaseResult result = this.kit.store().acquire(this.kit.acquireRequest(this.kit.identity("t1"), "alice",
				TTL_MS));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE);
		assertThat(result.reason()).isIn(Reason.FENCING_COUNTER_EXHAUSTED, Reason.BACKEND_CLOCK_BEHIND);
	}

	@Test
	void commitAuthorizationRejectsLowerTokenAfterNewAcquisition() {
		LeaseRecord first = this.kit.acquired(this.kit.identity("t1"), "alice");
		assertThat(this.kit.store().authorizeCommit(new CommitRequest(first.handle(), "corr_1",
				this.kit.deadline())).code())
			.isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		this.kit.store().forceRelease(this.kit.admin(Operation.FORCE_RELEASE, first));
		LeaseRecord second = this.kit.acquired(this.kit.identity("t1"), "bob");
		assertThat(this.kit.store().authorizeCommit(new CommitRequest(second.handle(), "corr_2",
				this.kit.deadline())).code())
			.isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		assertThat(this.kit.store().authorizeCommit(new CommitRequest(first.handle(), "corr_3",
				this.kit.deadline())).code())
			.isEqualTo(ResultCode.LEASE_LOST);
	}

}
