package io.starintel.lease.test.conformance;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.store.LeaseStore;

/**
 * The hooks through which a provider test hands its {@link LeaseStore} to the sweep and limit suites of
 * {@link LeaseStoreSweepConformanceKit}: the test class implements it, and each suite it includes as a
 * {@code @Nested} class gets it by parameter resolution, once per test.
 */
public interface SweepStoreUnderTest {

	/** A store with the given policy (each call may return a new store over the same backend). */
	LeaseStore createStore(LeasePolicy policy);

	/** Moves backend time forward (a fake clock) or waits until it has moved (a real server). */
	void advanceBackendTime(long millis);

	/**
	 * Another store over the same backend data as {@code current} (another client of the same server): by default a
	 * new store with the suites' policy; a store that is its own backend returns {@code current}.
	 */
	default LeaseStore sameBackend(LeaseStore current) {
		return createStore(SweepFixture.TEST_POLICY);
	}

}
