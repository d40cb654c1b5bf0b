package io.starintel.lease.testing.assertj;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.BackendHealth;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseState;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.testing.CapturedAuditEvents;
import io.starintel.lease.testing.HeldLease;

import static io.starintel.lease.testing.assertj.LeaseAssertions.assertThat;
import static io.starintel.lease.testing.assertj.LeaseAssertions.assertThatFencedWrite;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each assertion passes on what it names and fails, with a message, on anything else. */
class LeaseAssertionsTests {

	private static final Instant NOW = Instant.parse("2026-12-05T07:00:00Z");

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-a", "program-a", "starintel-target", "t-1",
			"scanner", "default", null);

	private static final LeaseRecord RECORD = new LeaseRecord(IDENTITY, "lease_1",
			new LeaseOwner("prn_a", "client", "none", "instance-a"), 42, NOW, NOW, NOW.plusSeconds(3), 3000, 60000,
			"execution_1", "job_1", "trace_1", "request_1", LeaseMetadata.empty(), LeaseState.ACTIVE);

	private static final FencedWriteResult ACCEPTED = new FencedWriteResult(FenceOutcome.ACCEPTED, Reason.NONE, "corr_1",
			null, new FenceStamp(IDENTITY.keyDigest(), 42, "lease_1", "execution_1", "trace_1", NOW));

	private static final FencedWriteResult STALE = FencedWriteResult.refused(FenceOutcome.LEASE_LOST,
			Reason.STALE_LEASE, "corr_2", null, null);

	private static final FencedWriteResult UNAVAILABLE = FencedWriteResult.refused(FenceOutcome.BACKEND_UNAVAILABLE,
			Reason.BACKEND_UNREACHABLE, "corr_3", null, null);

	@Test
	void fencedWriteResults() {
		assertThat(ACCEPTED).isAccepted().isAcceptedWithToken(42);
		assertThat(STALE).isRefused().isRefusedAsStale().isRefusedAsStale(Reason.STALE_LEASE);
		assertThat(UNAVAILABLE).isRefused().hasOutcome(FenceOutcome.BACKEND_UNAVAILABLE);
		assertThatThrownBy(() -> assertThat(ACCEPTED).isRefusedAsStale()).isInstanceOf(AssertionError.class)
			.hasMessageContaining("lease_lost");
		assertThatThrownBy(() -> assertThat(UNAVAILABLE).isRefusedAsStale()).isInstanceOf(AssertionError.class);
		assertThatThrownBy(() -> assertThat(STALE).isRefusedAsStale(Reason.TOKEN_BELOW_HIGH_WATER_MARK))
			.isInstanceOf(AssertionError.class);
		assertThatThrownBy(() -> assertThat(STALE).isAccepted()).isInstanceOf(AssertionError.class)
			.hasMessageContaining("refused");
		assertThatThrownBy(() -> assertThat(ACCEPTED).isAcceptedWithToken(41)).isInstanceOf(AssertionError.class);
		assertThatThrownBy(() -> assertThat(ACCEPTED).isRefused()).isInstanceOf(AssertionError.class);
	}

	@Test
	void fencedWritesThatThrow() {
		assertThatFencedWrite(() -> {
			throw new FencedWriteRejectedException(STALE);
		}).isRefusedAsStale();
		assertThatThrownBy(() -> assertThatFencedWrite(() -> {
		})).isInstanceOf(AssertionError.class).hasMessageContaining("accepted");
	}

	@Test
	void heldLeases() {
		HeldLease lease = new HeldLease(RECORD);
		assertThat(lease).forTarget("t-1").withFencingToken(42).withFencingTokenAbove(41).withActor("scanner")
			.ownedByInstance("instance-a");
		assertThatThrownBy(() -> assertThat(lease).withFencingToken(43)).isInstanceOf(AssertionError.class);
		assertThatThrownBy(() -> assertThat(lease).withFencingTokenAbove(42)).isInstanceOf(AssertionError.class);
		assertThatThrownBy(() -> assertThat(lease).forTarget("t-2")).isInstanceOf(AssertionError.class);
		assertThatThrownBy(() -> assertThat(lease).isActive()).isInstanceOf(IllegalStateException.class);
	}

	@Test
	void leaseContexts() {
		LeaseContext context = new LeaseContext(RECORD);
		assertThat(context).isForTarget("t-1").hasFencingToken(42).hasLeaseId("lease_1").isNotLost();
		assertThatThrownBy(() -> assertThat(context).isLost()).isInstanceOf(AssertionError.class);
		context.markLost(Reason.STALE_LEASE);
		assertThat(context).isLost().hasLossReason(Reason.STALE_LEASE);
		assertThatThrownBy(() -> assertThat(context).hasLossReason(Reason.EXPIRED)).isInstanceOf(AssertionError.class);
	}

	@Test
	void auditEventsWaitBoundedForTheExpectedOne() {
		CapturedAuditEvents events = new CapturedAuditEvents();
		events.record(event(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, "t-1"));
		events.record(event(AuditEventType.COMMIT_REJECTED, ResultCode.LEASE_LOST, "t-1"));
		assertThat(events).hasEventOfType(AuditEventType.ACQUIRE)
			.hasEvent(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED, "t-1")
			.hasCommitRejected("t-1")
			.hasNoEventOfType(AuditEventType.REVOKE);
		long start = System.nanoTime();
		assertThatThrownBy(() -> assertThat(events).within(Duration.ofMillis(300)).hasCommitRejected("t-2"))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("target_lease_commit_rejected");
		org.assertj.core.api.Assertions.assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isGreaterThanOrEqualTo(Duration.ofMillis(250));
		assertThatThrownBy(() -> assertThat(events).hasNoEventOfType(AuditEventType.ACQUIRE))
			.isInstanceOf(AssertionError.class);
		assertThat(events).hasNoEvent(AuditEventType.COMMIT_REJECTED, "t-2");
		assertThatThrownBy(() -> assertThat(events).hasNoEvent(AuditEventType.COMMIT_REJECTED, "t-1"))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("for target t-1");
		// an event delivered while the assertion waits is found
		new Thread(() -> events.record(event(AuditEventType.REVOKE, ResultCode.LEASE_REVOKED, "t-3"))).start();
		assertThat(events).hasEvent(AuditEventType.REVOKE, "t-3");
	}

	private static AuditEvent event(AuditEventType type, ResultCode code, String target) {
		return new AuditEvent(type, NOW, 1, "request_1", null, "decision_1", null, null, null, PrincipalClass.WORKER,
				"prn_a", null, "instance-a", "tenant-a", "program-a", "starintel-target", target, "scanner", "default",
				"default", "lease_1", 42L, null, null, null, null, null, code, false, BackendHealth.OK, null);
	}

}
