package io.starintel.lease.store;

import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hooks and request helpers of {@link LeaseStoreConformanceKit}: how the kit gets a store (default policy, or a
 * limit of attached keys), sets a fencing counter, and acquires, renews, releases and administers leases.
 */
abstract class LeaseStoreConformanceFixture extends ConformanceFixture {

	protected static final long TTL_MS = 60_000;

	/** The store under test, fresh or shared. */
	protected abstract LeaseStore createStore();

	/** A store like {@link #createStore()} whose policy allows at most {@code maximumKeys} keys per lease. */
	protected abstract LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys);

	/** Sets the durable fencing counter of an identity, to exercise the numeric limit. */
	protected abstract void setFencingCounter(LockIdentity identity, long value);

	@Override
	final LeaseStore storeForEachTest() {
		return createStore();
	}

	protected LeaseRecord acquired(LockIdentity identity, String owner) {
		LeaseResult result = this.store.acquire(acquireRequest(identity, owner, TTL_MS));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	protected LeaseResult renew(LeaseHandle handle) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline()));
	}

	protected LeaseResult renewWithTtl(LeaseHandle handle, long ttlMs) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline(), ttlMs));
	}

	protected LeaseResult release(LeaseHandle handle) {
		return this.store.release(new ReleaseRequest(handle, Identifiers.generate("request"), deadline()));
	}

	protected static AdminRequest admin(Operation op, LeaseRecord lease) {
		return new AdminRequest(op, lease.identity(), Identifiers.generate("request"), deadline(), lease.leaseId(),
				lease.fencingToken(), "prn_admin", "key_admin", "incident-42");
	}

}
