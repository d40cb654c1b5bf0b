package com.example.consumer;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.testing.Competitor;
import io.starintel.lease.testing.HeldLease;
import io.starintel.lease.testing.TargetLeaseTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static io.starintel.lease.testing.assertj.LeaseAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The consumer application's leased job, tested the way docs/testing.md tells a user to: with nothing but
 * lease-spring-boot-starter-test. Each subclass runs these on one kind of backend.
 */
abstract class ScanJobScenarios {

	@Autowired
	TargetLeaseTester leases;

	@Autowired
	ScanJob job;

	@Autowired
	JobState state;

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	@BeforeEach
	void resetState() {
		this.state.reset();
	}

	@AfterEach
	void stop() {
		this.state.finish();
		this.executor.shutdownNow();
	}

	static String target(String name) {
		return name + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	CompletableFuture<String> start(String target) {
		return CompletableFuture.supplyAsync(() -> this.job.scan(target), this.executor);
	}

	@Test
	void theJobRunsUnderALeaseWithTheExpectedToken() throws Exception {
		String target = target("run");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		this.state.finish();
		assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.leases).hasRunUnderLease(target)
			.withActor("consumer")
			.withFencingToken(this.state.lease().fencingToken())
			.hasEnded()
			.isNotActive();
		assertThat(this.state.lease()).isForTarget(target).hasLeaseId(lease.leaseId()).isNotLost();
		assertThat(this.state.couchResult()).isAcceptedWithToken(lease.fencingToken());
		assertAcceptedPublish(this.state.rabbitResult().outcome());
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, target)
			.hasEvent(AuditEventType.RELEASE, ResultCode.LEASE_RELEASED, target);
	}

	/** What the job's RabbitMQ publish of a valid lease gets with this suite's broker (or without one). */
	abstract void assertAcceptedPublish(io.starintel.lease.fence.FenceOutcome outcome);

	@Test
	void revokeFromTheHelperCancelsTheJobAndItsWritesAreRefusedAsStale() throws Exception {
		String target = target("revoke");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		this.leases.revoke(lease);
		LeaseLostEvent lost = this.leases.awaitCancellation(lease);
		assertThat(lost.context().leaseId()).isEqualTo(lease.leaseId());
		this.leases.awaitJobEnded(lease);
		assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.state.snapshot()).containsKeys("lost_at", "interrupted_at");
		assertThat(this.state.lease()).isLost();
		assertThat(this.state.couchResult()).isRefusedAsStale();
		assertThat(this.state.rabbitResult()).isRefusedAsStale();
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.REVOKE, ResultCode.LEASE_REVOKED, target)
			.hasCommitRejected(target);
	}

	@Test
	void aStaleWriteIsRefusedOnceACompetingHolderCommittedWithAHigherToken() throws Exception {
		String target = target("takeover");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		Competitor competitor = this.leases.takeOver(lease);
		assertThat(competitor.lease()).withFencingTokenAbove(lease.fencingToken());
		assertThat(competitor.commit().code()).isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		this.leases.awaitCancellation(lease);
		this.leases.awaitJobEnded(lease);
		run.get(30, TimeUnit.SECONDS);
		assertThat(this.state.couchResult()).isRefusedAsStale();
		assertThat(this.state.rabbitResult()).isRefusedAsStale();
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.FORCE_RELEASE, target)
			.hasCommitRejected(target);
		competitor.release();
	}

}
