package io.starintel.lease.testing;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.test.ServiceEnvironment;
import io.starintel.lease.testing.app.JobApplication;

import static org.assertj.core.api.Assertions.assertThat;

/** The scenarios on the real Redis store: a configured Redis ({@code spring.data.redis.url}) selects it. */
@SpringBootTest(classes = JobApplication.class)
@AutoConfigureLeaseTest
class RedisLeaseTests extends LeasedJobScenarios {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> ServiceEnvironment.redisUri().toString());
	}

	@Override
	FenceOutcome expectedWriteDuringExpiry() {
		return FenceOutcome.BACKEND_UNAVAILABLE;
	}

	@Override
	Reason expectedExpiryLoss() {
		return Reason.BACKEND_UNREACHABLE;
	}

	@Test
	void aConfiguredRedisSelectsTheRedisStore() {
		assertThat(this.leases.isInMemory()).isFalse();
		assertThat(this.leases.store()).isInstanceOf(RedisLeaseStore.class);
	}

}
