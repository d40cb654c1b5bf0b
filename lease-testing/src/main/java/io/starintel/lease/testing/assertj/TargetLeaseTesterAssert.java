package io.starintel.lease.testing.assertj;

import java.util.List;

import org.assertj.core.api.AbstractObjectAssert;

import io.starintel.lease.testing.HeldLease;
import io.starintel.lease.testing.TargetLeaseTester;

/** Assertions on the leases the application's jobs acquired, as the {@link TargetLeaseTester} observed them. */
public class TargetLeaseTesterAssert extends AbstractObjectAssert<TargetLeaseTesterAssert, TargetLeaseTester> {

	TargetLeaseTesterAssert(TargetLeaseTester actual) {
		super(actual, TargetLeaseTesterAssert.class);
	}

	/**
	 * Verifies that a job ran under a lease for {@code targetId} (since the test method started) and returns
	 * assertions on the newest such lease.
	 */
	public HeldLeaseAssert hasRunUnderLease(String targetId) {
		isNotNull();
		List<HeldLease> leases = this.actual.leases(targetId);
		if (leases.isEmpty()) {
			failWithMessage("Expected a job to have run under a lease for target <%s>, but no job acquired one "
					+ "(targets leased: %s)", targetId,
					this.actual.leases().stream().map(HeldLease::targetId).distinct().toList());
		}
		return new HeldLeaseAssert(leases.get(leases.size() - 1), this.actual);
	}

	/** Verifies that no job acquired a lease for {@code targetId} (since the test method started). */
	public TargetLeaseTesterAssert hasNoLeaseFor(String targetId) {
		isNotNull();
		List<HeldLease> leases = this.actual.leases(targetId);
		if (!leases.isEmpty()) {
			failWithMessage("Expected no lease for target <%s>, but jobs acquired %s", targetId, leases);
		}
		return this;
	}

	/** Verifies how many leases jobs acquired for {@code targetId}. */
	public TargetLeaseTesterAssert hasLeaseCount(String targetId, int expected) {
		isNotNull();
		int count = this.actual.leases(targetId).size();
		if (count != expected) {
			failWithMessage("Expected %s lease(s) for target <%s>, but jobs acquired %s", expected, targetId, count);
		}
		return this;
	}

}
