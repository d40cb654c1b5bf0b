package io.starintel.lease.store;

import java.time.Clock;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

/**
 * The one delegating store of the tests: every call goes to an in-memory store, and a test overrides the operations
 * it makes fail or slow. Shared through this module's test-jar (lease-worker-http's tests use it too).
 */
public class DelegatingStore implements LeaseStore {

	protected final InMemoryLeaseStore delegate;

	public DelegatingStore() {
		this(LeasePolicy.defaults());
	}

	public DelegatingStore(LeasePolicy policy) {
		this.delegate = new InMemoryLeaseStore(Clock.systemUTC(), policy);
	}

	@Override
	public LeaseResult acquire(AcquireRequest request) {
		return this.delegate.acquire(request);
	}

	@Override
	public LeaseResult renew(RenewRequest request) {
		return this.delegate.renew(request);
	}

	@Override
	public LeaseResult release(ReleaseRequest request) {
		return this.delegate.release(request);
	}

	@Override
	public LeaseResult inspect(InspectRequest request) {
		return this.delegate.inspect(request);
	}

	@Override
	public LeasePage list(ListRequest request) {
		return this.delegate.list(request);
	}

	@Override
	public LeaseResult forceRelease(AdminRequest request) {
		return this.delegate.forceRelease(request);
	}

	@Override
	public LeaseResult revoke(AdminRequest request) {
		return this.delegate.revoke(request);
	}

	@Override
	public LeaseResult authorizeCommit(CommitRequest request) {
		return this.delegate.authorizeCommit(request);
	}

	@Override
	public LeaseResult resolve(ResolveRequest request) {
		return this.delegate.resolve(request);
	}

}
