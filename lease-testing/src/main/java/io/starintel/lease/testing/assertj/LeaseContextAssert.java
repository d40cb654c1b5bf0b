package io.starintel.lease.testing.assertj;

import org.assertj.core.api.AbstractObjectAssert;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.Reason;

/** Assertions on a job's {@link LeaseContext}. */
public class LeaseContextAssert extends AbstractObjectAssert<LeaseContextAssert, LeaseContext> {

	LeaseContextAssert(LeaseContext actual) {
		super(actual, LeaseContextAssert.class);
	}

	public LeaseContextAssert isForTarget(String targetId) {
		isNotNull();
		if (!this.actual.identity().targetId().equals(targetId)) {
			failWithMessage("Expected %s to be for target <%s> but was for <%s>", this.actual, targetId,
					this.actual.identity().targetId());
		}
		return this;
	}

	public LeaseContextAssert hasFencingToken(long expected) {
		isNotNull();
		if (this.actual.fencingToken() != expected) {
			failWithMessage("Expected %s to have fencing token <%s> but was <%s>", this.actual, expected,
					this.actual.fencingToken());
		}
		return this;
	}

	public LeaseContextAssert hasLeaseId(String leaseId) {
		isNotNull();
		if (!this.actual.leaseId().equals(leaseId)) {
			failWithMessage("Expected %s to have lease id <%s> but was <%s>", this.actual, leaseId,
					this.actual.leaseId());
		}
		return this;
	}

	/** Verifies that the context was marked lost (the job's lease ended under it). */
	public LeaseContextAssert isLost() {
		isNotNull();
		if (!this.actual.isLost()) {
			failWithMessage("Expected %s to be lost, but it still holds authority", this.actual);
		}
		return this;
	}

	public LeaseContextAssert isNotLost() {
		isNotNull();
		if (this.actual.isLost()) {
			failWithMessage("Expected %s not to be lost, but it was (%s)", this.actual,
					this.actual.lossReason().map(Reason::wireName).orElse("?"));
		}
		return this;
	}

	public LeaseContextAssert hasLossReason(Reason reason) {
		isLost();
		if (this.actual.lossReason().orElse(null) != reason) {
			failWithMessage("Expected %s to be lost with reason <%s> but was <%s>", this.actual, reason.wireName(),
					this.actual.lossReason().map(Reason::wireName).orElse("?"));
		}
		return this;
	}

}
