package io.starintel.lease.testing.assertj;

import org.assertj.core.api.AbstractObjectAssert;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.testing.HeldLease;
import io.starintel.lease.testing.TargetLeaseTester;

/** Assertions on one lease; those about the backend or the job need the tester ({@code assertThat(tester)}). */
public class HeldLeaseAssert extends AbstractObjectAssert<HeldLeaseAssert, HeldLease> {

	private final @Nullable TargetLeaseTester tester;

	HeldLeaseAssert(HeldLease actual, @Nullable TargetLeaseTester tester) {
		super(actual, HeldLeaseAssert.class);
		this.tester = tester;
	}

	/** Verifies the lease's fencing token. */
	public HeldLeaseAssert withFencingToken(long expected) {
		isNotNull();
		if (this.actual.fencingToken() != expected) {
			failWithMessage("Expected %s to have fencing token <%s> but was <%s>", this.actual, expected,
					this.actual.fencingToken());
		}
		return this;
	}

	/** Verifies that the lease's fencing token is above {@code other}'s (a later holder's). */
	public HeldLeaseAssert withFencingTokenAbove(long other) {
		isNotNull();
		if (this.actual.fencingToken() <= other) {
			failWithMessage("Expected %s to have a fencing token above <%s> but was <%s>", this.actual, other,
					this.actual.fencingToken());
		}
		return this;
	}

	/** Verifies the lease's target id. */
	public HeldLeaseAssert forTarget(String targetId) {
		isNotNull();
		if (!this.actual.targetId().equals(targetId)) {
			failWithMessage("Expected %s to be for target <%s> but was for <%s>", this.actual, targetId,
					this.actual.targetId());
		}
		return this;
	}

	/** Verifies the lock identity's actor name. */
	public HeldLeaseAssert withActor(String actorName) {
		isNotNull();
		if (!this.actual.identity().actorName().equals(actorName)) {
			failWithMessage("Expected %s to have actor <%s> but was <%s>", this.actual, actorName,
					this.actual.identity().actorName());
		}
		return this;
	}

	/** Verifies the owner's service instance id. */
	public HeldLeaseAssert ownedByInstance(String serviceInstanceId) {
		isNotNull();
		if (!this.actual.owner().serviceInstanceId().equals(serviceInstanceId)) {
			failWithMessage("Expected %s to be owned by instance <%s> but was <%s>", this.actual, serviceInstanceId,
					this.actual.owner().serviceInstanceId());
		}
		return this;
	}

	/** Verifies that the lease is active at the backend now. */
	public HeldLeaseAssert isActive() {
		if (!tester().isActive(this.actual)) {
			failWithMessage("Expected %s to be active at the backend, but it is not", this.actual);
		}
		return this;
	}

	/** Verifies that the lease is no longer active at the backend. */
	public HeldLeaseAssert isNotActive() {
		if (tester().isActive(this.actual)) {
			failWithMessage("Expected %s to have ended, but it is still active at the backend", this.actual);
		}
		return this;
	}

	/** Verifies that the job was told its lease is lost (its {@code LeaseLostEvent}; waits up to the default). */
	public HeldLeaseAssert wasCancelled() {
		tester().awaitCancellation(this.actual);
		return this;
	}

	/** Verifies that the job's method returned (waits up to the default). */
	public HeldLeaseAssert hasEnded() {
		tester().awaitJobEnded(this.actual);
		return this;
	}

	private TargetLeaseTester tester() {
		isNotNull();
		if (this.tester == null) {
			throw new IllegalStateException("Backend and job assertions need the tester: "
					+ "assertThat(tester).hasRunUnderLease(target)...");
		}
		return this.tester;
	}

}
