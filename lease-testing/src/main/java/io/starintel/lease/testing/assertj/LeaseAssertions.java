package io.starintel.lease.testing.assertj;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.fence.FencedWriteRejectedException;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.testing.CapturedAuditEvents;
import io.starintel.lease.testing.HeldLease;
import io.starintel.lease.testing.TargetLeaseTester;

/**
 * Entry point of the lease assertions (import statically beside AssertJ's {@code Assertions}):
 *
 * <pre class="code">
 * assertThat(leases).hasRunUnderLease("target-1").withFencingToken(token).wasCancelled();
 * assertThat(job.lastWrite()).isRefusedAsStale();
 * assertThat(leases.auditEvents()).hasEvent(AuditEventType.COMMIT_REJECTED, "target-1");
 * </pre>
 */
public final class LeaseAssertions {

	private LeaseAssertions() {
	}

	/** Assertions on what the application's jobs leased ({@link TargetLeaseTester}). */
	public static TargetLeaseTesterAssert assertThat(TargetLeaseTester tester) {
		return new TargetLeaseTesterAssert(tester);
	}

	/** Assertions on one lease's record (no backend look-ups: use {@link #assertThat(TargetLeaseTester)} for those). */
	public static HeldLeaseAssert assertThat(HeldLease lease) {
		return new HeldLeaseAssert(lease, null);
	}

	/** Assertions on a job's {@link LeaseContext} (e.g. one the job recorded). */
	public static LeaseContextAssert assertThat(LeaseContext context) {
		return new LeaseContextAssert(context);
	}

	/** Assertions on a fenced write's result (CouchDB, RabbitMQ, checkpoint). */
	public static FencedWriteResultAssert assertThat(FencedWriteResult result) {
		return new FencedWriteResultAssert(result);
	}

	/**
	 * Runs a fenced write whose API throws on refusal ({@code FencedCouchDbConnector.update}, {@code
	 * FencedRabbitTemplate.send}, ...) and asserts on the refusal's result.
	 * @throws AssertionError when it did not throw {@link FencedWriteRejectedException}
	 */
	public static FencedWriteResultAssert assertThatFencedWrite(ThrowingCallable write) {
		try {
			write.call();
		}
		catch (FencedWriteRejectedException ex) {
			return new FencedWriteResultAssert(ex.result());
		}
		catch (Throwable ex) {
			throw new AssertionError("Expected the fenced write to be refused with FencedWriteRejectedException, but "
					+ "it threw " + ex, ex);
		}
		throw new AssertionError("Expected the fenced write to be refused, but it was accepted");
	}

	/** Assertions on the captured audit events (they wait, bounded, for expected events). */
	public static AuditEventsAssert assertThat(CapturedAuditEvents events) {
		return new AuditEventsAssert(events);
	}

}
