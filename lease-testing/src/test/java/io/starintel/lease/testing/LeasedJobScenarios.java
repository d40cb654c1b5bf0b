package io.starintel.lease.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.testing.app.ScanJob;

import static io.starintel.lease.testing.assertj.LeaseAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a user tests about a leased job, once per store (the subclasses): it runs under a lease with the token it
 * sees; revoke, expiry, a take-over and an unreachable backend each cancel it and its later fenced write is refused;
 * the audit events say so. Every wait is bounded and event-driven (the tester's futures, the audit sink's monitor).
 */
abstract class LeasedJobScenarios {

	@Autowired
	TargetLeaseTester leases;

	@Autowired
	ScanJob job;

	@Autowired
	FenceGuard fence;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void stopJobs() {
		this.executor.shutdownNow();
	}

	/** A fresh target per test (a Redis server outlives the test run). */
	static String target(String name) {
		return name + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	CompletableFuture<String> start(String target) {
		return CompletableFuture.supplyAsync(() -> this.job.scan(target), this.executor);
	}

	@Test
	void theJobRunsUnderALeaseWithTheTokenItSeesAndReleasesIt() throws Exception {
		String target = target("run");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		assertThat(lease).forTarget(target).withActor("scanner");
		assertThat(this.leases.isActive(lease)).isTrue();
		this.job.finish(target);
		assertThat(run.get(15, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.leases).hasRunUnderLease(target)
			.withFencingToken(this.job.run(target).context().fencingToken())
			.hasEnded()
			.isNotActive();
		assertThat(this.job.run(target).context()).isForTarget(target).hasLeaseId(lease.leaseId()).isNotLost();
		assertThat(this.job.run(target).write()).isAcceptedWithToken(lease.fencingToken());
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, target)
			.hasEvent(AuditEventType.RELEASE, ResultCode.LEASE_RELEASED, target)
			.hasNoEvent(AuditEventType.COMMIT_REJECTED, target);
	}

	@Test
	void whenTheJobHasEndedItsReleaseEventIsAlreadyCaptured() throws Exception {
		String target = target("ended");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		this.job.finish(target);
		this.leases.awaitJobEnded(lease);
		// no wait: the job's events are all captured within the test that ran it, none is delivered into the next
		assertThat(this.leases.auditEvents()
			.matching((event) -> event.eventType() == AuditEventType.RELEASE && lease.leaseId().equals(event.leaseId())))
			.as("the job's release event when awaitJobEnded returned (captured: %s)", this.leases.auditEvents())
			.hasSize(1);
		assertThat(run.get(15, TimeUnit.SECONDS)).isEqualTo("done");
	}

	@Test
	void revokeCancelsTheJobAndItsLaterWriteIsRefusedAsStale() throws Exception {
		String target = target("revoke");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		assertThat(this.leases.revoke(lease).code()).isEqualTo(ResultCode.LEASE_REVOKED);
		LeaseLostEvent lost = this.leases.awaitCancellation(lease);
		assertThat(lost.context().leaseId()).isEqualTo(lease.leaseId());
		assertThat(lost.reason()).isNotEqualTo(Reason.BACKEND_UNREACHABLE);
		this.leases.awaitJobEnded(lease);
		assertThat(run.get(15, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.job.run(target).interrupted()).as("cancellation interrupts the job").isTrue();
		assertThat(this.job.run(target).context()).isLost();
		assertThat(this.job.run(target).write()).isRefusedAsStale();
		assertThat(this.leases).hasRunUnderLease(target).withFencingToken(lease.fencingToken()).isNotActive();
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.REVOKE, ResultCode.LEASE_REVOKED, target)
			.hasCommitRejected(target);
	}

	@Test
	void anExpiredLeaseCancelsTheJobAndItsLaterWriteIsRefused() throws Exception {
		String target = target("expire");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		this.leases.expire(lease);
		assertThat(this.leases.isActive(lease)).isFalse();
		LeaseLostEvent lost = this.leases.awaitCancellation(lease);
		assertThat(lost.reason()).isEqualTo(expectedExpiryLoss());
		this.leases.awaitJobEnded(lease);
		run.get(15, TimeUnit.SECONDS);
		assertThat(this.job.run(target).write()).isRefused().hasOutcome(expectedWriteDuringExpiry());
		// once expired, any later commit under the job's context is refused as stale
		assertThat(this.fence.authorize(this.job.run(target).context()).toWriteResult()).isRefusedAsStale();
		assertThat(this.leases.auditEvents()).hasCommitRejected(target);
	}

	/** How the job learns that its lease expired (the in-memory store answers the renewal; on Redis, the margin). */
	abstract Reason expectedExpiryLoss();

	/**
	 * What the cancelled job's immediate write gets: on the in-memory store the lease has expired ({@code lease_lost});
	 * on Redis the job is cancelled at its safety margin while {@code expire} still keeps the lease's calls
	 * unreachable ({@code lease_backend_unavailable}).
	 */
	abstract FenceOutcome expectedWriteDuringExpiry();

	@Test
	void aCompetingHolderTakesTheTargetOverWithAHigherTokenAndTheJobIsFenced() throws Exception {
		String target = target("takeover");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		Competitor competitor = this.leases.takeOver(lease);
		assertThat(competitor.lease()).forTarget(target).withFencingTokenAbove(lease.fencingToken());
		assertThat(this.leases.isActive(competitor.lease())).isTrue();
		assertThat(competitor.commit().code()).isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		this.leases.awaitCancellation(lease);
		this.leases.awaitJobEnded(lease);
		run.get(15, TimeUnit.SECONDS);
		assertThat(this.job.run(target).write()).isRefusedAsStale();
		assertThat(this.leases.leases(target)).as("the competitor is not one of the jobs' leases").hasSize(1);
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.FORCE_RELEASE, target)
			.hasCommitRejected(target);
		assertThat(competitor.release().code()).isEqualTo(ResultCode.LEASE_RELEASED);
	}

	@Test
	void anUnreachableBackendCancelsTheJobBeforeItsLeaseExpires() throws Exception {
		String target = target("outage");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		try (Outage outage = this.leases.backendUnreachable()) {
			LeaseLostEvent lost = this.leases.awaitCancellation(lease);
			assertThat(lost.reason()).isEqualTo(Reason.BACKEND_UNREACHABLE);
			assertThat(Instant.now()).as("loss is declared at the safety margin, before expiry")
				.isBefore(lost.context().expiresAt());
			this.leases.awaitJobEnded(lease);
			run.get(15, TimeUnit.SECONDS);
			assertThat(this.job.run(target).write()).isRefused().hasOutcome(FenceOutcome.BACKEND_UNAVAILABLE);
			assertThat(outage.isActive()).isTrue();
		}
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.RENEW, ResultCode.LEASE_BACKEND_UNAVAILABLE,
				target);
	}

	@Test
	void theWaitsAreBoundedAndSayWhatTheySaw() throws Exception {
		String target = target("kept");
		CompletableFuture<String> run = start(target);
		HeldLease lease = this.leases.awaitLease(target);
		assertThatThrownBy(() -> this.leases.awaitCancellation(lease, Duration.ofMillis(1500)))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("was not cancelled")
			.hasMessageContaining("lease still active: true");
		assertThatThrownBy(() -> this.leases.awaitJobEnded(lease, Duration.ofMillis(300)))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("did not end");
		assertThat(this.leases.hasJobEnded(lease)).isFalse();
		assertThatThrownBy(() -> this.leases.awaitLease("no-such-target", Duration.ofMillis(200)))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("No job acquired a lease for target 'no-such-target'");
		this.job.finish(target);
		run.get(15, TimeUnit.SECONDS);
		this.leases.awaitJobEnded(lease, Duration.ofSeconds(5));
	}

}
