package io.starintel.lease.test.conformance;

import java.util.concurrent.atomic.AtomicLong;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import io.starintel.lease.store.OffsetClock;

/**
 * The sweep and limit rows against the in-memory reference store on a manually advanced backend clock.
 */
class InMemoryLeaseStoreSweepConformanceTests extends LeaseStoreSweepConformanceKit {

	private final AtomicLong offsetMillis = new AtomicLong();

	@Override
	public LeaseStore createStore(LeasePolicy policy) {
		return new InMemoryLeaseStore(new OffsetClock(this.offsetMillis), policy);
	}

	/** The reference store is its own backend: the concurrent sweepers share the one instance. */
	@Override
	public LeaseStore sameBackend(LeaseStore current) {
		return current;
	}

	@Override
	public void advanceBackendTime(long millis) {
		this.offsetMillis.addAndGet(millis);
	}

}
