package io.starintel.lease.testing;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;

import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.testing.app.JobApplication;

import static org.assertj.core.api.Assertions.assertThat;

/** The scenarios on the in-memory store: no Redis anywhere in this test's configuration. */
@SpringBootTest(classes = JobApplication.class)
@AutoConfigureLeaseTest
class InMemoryLeaseTests extends LeasedJobScenarios {

	@Override
	FenceOutcome expectedWriteDuringExpiry() {
		return FenceOutcome.LEASE_LOST;
	}

	@Override
	Reason expectedExpiryLoss() {
		return Reason.STALE_LEASE;
	}

	@Test
	void withoutRedisTheTestRunsOnTheInMemoryStoreWithBackendTimeUnderItsControl() {
		assertThat(this.leases.isInMemory()).isTrue();
		assertThat(this.leases.store()).isInstanceOf(InMemoryLeaseStore.class);
	}

}
