package io.starintel.lease.test.conformance;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hooks and request helpers of {@link LeaseStoreConformanceKit}: how the kit gets a store (default policy, or a
 * limit of attached keys), sets a fencing counter, acquires, renews, releases and administers leases, and puts,
 * reads, lists and deletes attached keys.
 */
abstract class LeaseStoreConformanceFixture extends ConformanceFixture {

	/** The TTL of the leases a test holds throughout. */
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

	/** Acquires {@code identity} for {@code owner} (TTL {@link #TTL_MS}), asserting that it was granted. */
	protected LeaseRecord acquired(LockIdentity identity, String owner) {
		LeaseResult result = this.store.acquire(acquireRequest(identity, owner, TTL_MS));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	/** Renews with a fresh request id and the current TTL. */
	protected LeaseResult renew(LeaseHandle handle) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline()));
	}

	/** Renews with a fresh request id and a new TTL. */
	protected LeaseResult renewWithTtl(LeaseHandle handle, long ttlMs) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline(), ttlMs));
	}

	/** Releases with a fresh request id. */
	protected LeaseResult release(LeaseHandle handle) {
		return this.store.release(new ReleaseRequest(handle, Identifiers.generate("request"), deadline()));
	}

	/** An administrator request (fresh request id) for {@code op} on the observed {@code lease}. */
	protected static AdminRequest admin(Operation op, LeaseRecord lease) {
		return new AdminRequest(op, lease.identity(), Identifiers.generate("request"), deadline(), lease.leaseId(),
				lease.fencingToken(), "prn_admin", "key_admin", "incident-42");
	}

	/** Puts an attached key under {@code handle} with a fresh request id. */
	protected AttachmentResult put(LeaseHandle handle, String name, String value) {
		return this.store.putAttached(new AttachPutRequest(handle, name, value, Identifiers.generate("request"),
				deadline()));
	}

	/** Reads an attached key of {@code scope}. */
	protected AttachmentResult get(ProgramScope scope, String name) {
		return this.store.getAttached(new AttachGetRequest(scope, name, "corr_1", deadline()));
	}

	/** Lists the names attached to {@code lease}. */
	protected AttachmentResult listAttached(LeaseRecord lease) {
		return this.store.listAttached(new AttachListRequest(lease.identity().scope(), lease.leaseId(), "corr_1",
				deadline()));
	}

	/** Deletes an attached key under {@code handle} with a fresh request id. */
	protected AttachmentResult deleteAttached(LeaseHandle handle, String name) {
		return this.store.deleteAttached(new AttachDeleteRequest(handle, name, Identifiers.generate("request"),
				deadline()));
	}

}
