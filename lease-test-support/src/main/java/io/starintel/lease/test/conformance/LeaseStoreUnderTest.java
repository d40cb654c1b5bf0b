package io.starintel.lease.test.conformance;

import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.store.LeaseStore;

/**
 * The hooks through which a provider test hands its {@link LeaseStore} to the conformance suites of
 * {@link LeaseStoreConformanceKit}: the test class implements it (the kit does, abstractly), and each suite it
 * includes as a {@code @Nested} class gets it by parameter resolution, once per test.
 */
public interface LeaseStoreUnderTest {

	/** The store under test, fresh or over a shared backend (each test works in a fresh program). */
	LeaseStore createStore();

	/** A store like {@link #createStore()} whose policy allows at most {@code maximumKeys} keys per lease. */
	LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys);

	/** Moves backend time forward (a fake clock) or waits until it has moved (a real server). */
	void advanceBackendTime(long millis);

	/** Sets the durable fencing counter of an identity, to exercise the numeric limit. */
	void setFencingCounter(LockIdentity identity, long value);

}
