package io.starintel.lease.testing;

import java.time.Instant;
import java.util.Objects;

import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;

/**
 * A lease as it was acquired through the application's store: by one of its jobs
 * ({@link TargetLeaseTester#awaitLease}) or by a competing holder ({@link Competitor#lease()}). The record is the
 * store's answer to the acquisition; {@link TargetLeaseTester#isActive} asks the backend about now.
 *
 * @param record the acquired record (identity, lease id, owner, fencing token, times)
 */
public record HeldLease(LeaseRecord record) {

	public HeldLease {
		Objects.requireNonNull(record, "record");
	}

	/** The target id of the lock identity. */
	public String targetId() {
		return this.record.identity().targetId();
	}

	public LockIdentity identity() {
		return this.record.identity();
	}

	public String leaseId() {
		return this.record.leaseId();
	}

	public long fencingToken() {
		return this.record.fencingToken();
	}

	public LeaseOwner owner() {
		return this.record.owner();
	}

	/** Expiry at acquisition (renewals move the backend's expiry on). */
	public Instant expiresAt() {
		return this.record.expiresAt();
	}

	public LeaseHandle handle() {
		return this.record.handle();
	}

	/** Never prints the target id (as the library's own types). */
	@Override
	public String toString() {
		return "HeldLease[" + this.record.identity() + ", lease " + this.record.leaseId() + ", token "
				+ this.record.fencingToken() + "]";
	}

}
