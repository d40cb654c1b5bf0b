package io.starintel.lease.test.conformance;

import java.time.Instant;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.LeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What one test of the lease-store suites works with: the store (from the provider's {@link LeaseStoreUnderTest}),
 * a fresh program, and the requests of the contract's verbs (fresh request ids, deadlines 30 s ahead). Every suite
 * builds one per test; none inherits it.
 */
public final class LeaseStoreFixture {

	/** The TTL of the leases a test holds throughout. */
	public static final long TTL_MS = 60_000;

	private final LeaseStoreUnderTest underTest;

	private final ConformanceProgram program = new ConformanceProgram();

	private LeaseStore store;

	/** A fixture with a new store of {@code underTest} and a fresh program. */
	public LeaseStoreFixture(LeaseStoreUnderTest underTest) {
		this.underTest = underTest;
		this.store = underTest.createStore();
	}

	/** The store the test works on. */
	public LeaseStore store() {
		return this.store;
	}

	/** Makes {@code store} the one the test works on from now. */
	public void useStore(LeaseStore store) {
		this.store = store;
	}

	/** The test's own program id. */
	public String program() {
		return this.program.id();
	}

	/** An identity of the test's program for {@code target}. */
	public LockIdentity identity(String target) {
		return this.program.identity(target);
	}

	/** A request deadline 30 s ahead. */
	public Instant deadline() {
		return ConformanceProgram.deadline();
	}

	/** A fresh acquire request (new request id) of {@code owner} with the given TTL and a 300 s maximum lifetime. */
	public AcquireRequest acquireRequest(LockIdentity identity, String owner, long ttlMs) {
		return ConformanceProgram.acquireRequest(identity, owner, ttlMs);
	}

	/** Acquires {@code identity} for {@code owner} (TTL {@link #TTL_MS}), asserting that it was granted. */
	public LeaseRecord acquired(LockIdentity identity, String owner) {
		LeaseResult result = this.store.acquire(acquireRequest(identity, owner, TTL_MS));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	/** Inspects the active lease of {@code identity}. */
	public LeaseResult inspect(LockIdentity identity) {
		return this.store.inspect(InspectRequest.byIdentity(identity, "corr_1", deadline()));
	}

	/** Renews with a fresh request id and the current TTL. */
	public LeaseResult renew(LeaseHandle handle) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline()));
	}

	/** Renews with a fresh request id and a new TTL. */
	public LeaseResult renewWithTtl(LeaseHandle handle, long ttlMs) {
		return this.store.renew(new RenewRequest(handle, Identifiers.generate("request"), deadline(), ttlMs));
	}

	/** Releases with a fresh request id. */
	public LeaseResult release(LeaseHandle handle) {
		return this.store.release(new ReleaseRequest(handle, Identifiers.generate("request"), deadline()));
	}

	/** An administrator request (fresh request id) for {@code op} on the observed {@code lease}. */
	public AdminRequest admin(Operation op, LeaseRecord lease) {
		return new AdminRequest(op, lease.identity(), Identifiers.generate("request"), deadline(), lease.leaseId(),
				lease.fencingToken(), "prn_admin", "key_admin", "incident-42");
	}

	/** Puts an attached key under {@code handle} with a fresh request id. */
	public AttachmentResult put(LeaseHandle handle, String name, String value) {
		return this.store.putAttached(new AttachPutRequest(handle, name, value, Identifiers.generate("request"),
				deadline()));
	}

	/** Reads an attached key of {@code scope}. */
	public AttachmentResult get(ProgramScope scope, String name) {
		return this.store.getAttached(new AttachGetRequest(scope, name, "corr_1", deadline()));
	}

	/** Lists the names attached to {@code lease}. */
	public AttachmentResult listAttached(LeaseRecord lease) {
		return this.store.listAttached(new AttachListRequest(lease.identity().scope(), lease.leaseId(), "corr_1",
				deadline()));
	}

	/** Deletes an attached key under {@code handle} with a fresh request id. */
	public AttachmentResult deleteAttached(LeaseHandle handle, String name) {
		return this.store.deleteAttached(new AttachDeleteRequest(handle, name, Identifiers.generate("request"),
				deadline()));
	}

	/** The provider's store with a limit of attached keys per lease. */
	public LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys) {
		return this.underTest.createStoreWithAttachedKeyLimit(maximumKeys);
	}

	/** Moves backend time forward, or waits until it has moved. */
	public void advanceBackendTime(long millis) {
		this.underTest.advanceBackendTime(millis);
	}

	/** Sets the durable fencing counter of an identity. */
	public void setFencingCounter(LockIdentity identity, long value) {
		this.underTest.setFencingCounter(identity, value);
	}

}
