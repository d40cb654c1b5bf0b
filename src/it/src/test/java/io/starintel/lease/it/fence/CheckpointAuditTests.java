package io.starintel.lease.it.fence;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceCheckpointAutoConfiguration;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.CheckpointStore;
import io.starintel.lease.it.redis.AuditedApplication;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The checkpoint enforcement point's audit on the assembled application (Redis, lease store, audit and fence
 * auto-configurations; events captured by an {@link AuditSink} bean behind the audit pipeline): a written checkpoint
 * emits {@code target_lease_commit_authorize}, a stale one (after the lease was released)
 * {@code target_lease_commit_rejected} with {@code lease_lost} and the enforcement point {@code checkpoint:}.
 */
class CheckpointAuditTests {

	@SpringBootConfiguration
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
			LeaseAuditAutoConfiguration.class, FenceAutoConfiguration.class, FenceCheckpointAutoConfiguration.class })
	static class App {

		@Bean
		AuditedApplication.Recorded recorded() {
			return new AuditedApplication.Recorded();
		}

	}

	@Test
	void everyCheckpointWriteEmitsOneAuditEventWithItsAnswer() {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		try (ConfigurableApplicationContext app = AuditedApplication.start(App.class, "tenant-cp-audit", program, "prn_cp_audit")) {
			LeaseService service = app.getBean(LeaseService.class);
			CheckpointStore checkpoints = app.getBean(CheckpointStore.class);
			AuditedApplication.Recorded recorded = app.getBean(AuditedApplication.Recorded.class);
			LockIdentity identity = LockIdentity.of("tenant-cp-audit", program, "starintel-target", "t-audit",
					"usernamegen", "default", "default");
			LeaseResult acquired = service.acquire(AcquireRequest
				.builder(identity, new LeaseOwner("prn_cp_audit", "client_1", "key_1", "instance_1"))
				.ttl(Duration.ofSeconds(30))
				.maximumLifetime(Duration.ofMinutes(5))
				.build(service.newId(), service.deadline()));
			assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			LeaseContext context = new LeaseContext(acquired.lease());
			FencedWriteResult written = checkpoints.write(context, CheckpointState.IN_PROGRESS, "half");
			assertThat(written.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
			assertThat(service.release(new ReleaseRequest(context.handle(), service.newId(), service.deadline()))
				.code()).isEqualTo(ResultCode.LEASE_RELEASED);
			FencedWriteResult stale = checkpoints.write(context, CheckpointState.COMPLETED, "done");
			assertThat(stale.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(recorded.events).filteredOn((e) -> written.correlationId().equals(e.correlationId()))
					.singleElement()
					.satisfies((e) -> {
						assertThat(e.eventType().wireName()).isEqualTo("target_lease_commit_authorize");
						assertThat(e.resultCode()).isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
						assertThat(e.reason()).isEqualTo("checkpoint:none");
						assertThat(e.leaseId()).isEqualTo(context.leaseId());
						assertThat(e.fencingToken()).isEqualTo(context.fencingToken());
					});
				assertThat(recorded.events).filteredOn((e) -> stale.correlationId().equals(e.correlationId()))
					.singleElement()
					.satisfies((e) -> {
						assertThat(e.eventType().wireName()).isEqualTo("target_lease_commit_rejected");
						assertThat(e.resultCode()).isEqualTo(ResultCode.LEASE_LOST);
						assertThat(e.reason()).startsWith("checkpoint:");
						assertThat(e.targetId()).isEqualTo("t-audit");
					});
			});
		}
	}

}
