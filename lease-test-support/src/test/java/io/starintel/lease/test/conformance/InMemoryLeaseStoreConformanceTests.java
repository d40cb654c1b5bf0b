package io.starintel.lease.test.conformance;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import io.starintel.lease.store.OffsetClock;

/**
 * Runs the conformance kit against the in-memory reference store on a manually advanced backend clock.
 */
class InMemoryLeaseStoreConformanceTests extends LeaseStoreConformanceKit {

	private final AtomicLong offsetMillis = new AtomicLong();

	private InMemoryLeaseStore memory;

	@Override
	public LeaseStore createStore() {
		Clock clock = new OffsetClock(this.offsetMillis);
		this.memory = new InMemoryLeaseStore(clock,
				LeasePolicy.defaults().withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10)));
		return this.memory;
	}

	@Override
	public LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys) {
		this.memory = new InMemoryLeaseStore(new OffsetClock(this.offsetMillis),
				LeasePolicy.defaults().withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10))
					.withAttachedKeyBounds(maximumKeys, 64 * 1024));
		return this.memory;
	}

	@Override
	public void advanceBackendTime(long millis) {
		this.offsetMillis.addAndGet(millis);
	}

	@Override
	public void setFencingCounter(LockIdentity identity, long value) {
		this.memory.setFencingCounter(identity.lockKey(), value);
	}

}
