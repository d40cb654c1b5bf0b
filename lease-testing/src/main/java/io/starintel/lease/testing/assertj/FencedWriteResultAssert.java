package io.starintel.lease.testing.assertj;

import org.assertj.core.api.AbstractObjectAssert;

import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;

/** Assertions on a fenced write's typed result (CouchDB document, RabbitMQ publish, checkpoint). */
public class FencedWriteResultAssert extends AbstractObjectAssert<FencedWriteResultAssert, FencedWriteResult> {

	FencedWriteResultAssert(FencedWriteResult actual) {
		super(actual, FencedWriteResultAssert.class);
	}

	/** Verifies that the write was accepted. */
	public FencedWriteResultAssert isAccepted() {
		isNotNull();
		if (!this.actual.isAccepted()) {
			failWithMessage("Expected the fenced write to be accepted, but it was refused: %s/%s (%s)",
					this.actual.outcome().wireName(), this.actual.reason().wireName(), this.actual.detail());
		}
		return this;
	}

	/** Verifies that the write was accepted and stamped with {@code fencingToken}. */
	public FencedWriteResultAssert isAcceptedWithToken(long fencingToken) {
		isAccepted();
		if (this.actual.stamp() == null || this.actual.stamp().fencingToken() != fencingToken) {
			failWithMessage("Expected the accepted write to be stamped with token <%s> but was <%s>", fencingToken,
					(this.actual.stamp() != null) ? this.actual.stamp().fencingToken() : null);
		}
		return this;
	}

	/**
	 * Verifies that the write was refused as stale: the writer's lease is no longer the active one or its token is
	 * below the target's high-water mark ({@code lease_lost}, whatever the reason).
	 */
	public FencedWriteResultAssert isRefusedAsStale() {
		return hasOutcome(FenceOutcome.LEASE_LOST);
	}

	/** Verifies a stale refusal with the given reason ({@code stale_lease}, {@code token_below_high_water_mark}, ...). */
	public FencedWriteResultAssert isRefusedAsStale(Reason reason) {
		isRefusedAsStale();
		return hasReason(reason);
	}

	/** Verifies that the write was refused, for any outcome. */
	public FencedWriteResultAssert isRefused() {
		isNotNull();
		if (this.actual.isAccepted()) {
			failWithMessage("Expected the fenced write to be refused, but it was accepted (%s)", this.actual.stamp());
		}
		return this;
	}

	public FencedWriteResultAssert hasOutcome(FenceOutcome outcome) {
		isNotNull();
		if (this.actual.outcome() != outcome) {
			failWithMessage("Expected the fenced write's outcome to be <%s> but was <%s> (reason %s, detail %s)",
					outcome.wireName(), this.actual.outcome().wireName(), this.actual.reason().wireName(),
					this.actual.detail());
		}
		return this;
	}

	public FencedWriteResultAssert hasReason(Reason reason) {
		isNotNull();
		if (this.actual.reason() != reason) {
			failWithMessage("Expected the fenced write's reason to be <%s> but was <%s> (outcome %s)",
					reason.wireName(), this.actual.reason().wireName(), this.actual.outcome().wireName());
		}
		return this;
	}

}
