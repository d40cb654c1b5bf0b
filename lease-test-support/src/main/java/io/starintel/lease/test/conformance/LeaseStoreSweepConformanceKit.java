package io.starintel.lease.test.conformance;

import org.junit.jupiter.api.Nested;

/**
 * What every store's expiry sweep ({@link io.starintel.lease.store.LeaseStore#sweepExpired}) and lease limits do: the
 * reference store and the Redis/Valkey store run the same rows. A provider test extends this class and supplies the
 * store through the {@link SweepStoreUnderTest} hooks; both suites run as {@code @Nested} classes of it, each test
 * with its own {@link SweepFixture} (a fresh store and program).
 *
 * <pre>{@code
 * class MyLeaseStoreSweepConformanceTests extends LeaseStoreSweepConformanceKit {
 *     public LeaseStore createStore(LeasePolicy policy) { return new MyLeaseStore(server, policy); }
 *     public void advanceBackendTime(long millis) { ... }
 *     // optional: public LeaseStore sameBackend(LeaseStore current) { ... } (another client of the same server)
 * }
 * }</pre>
 */
public abstract class LeaseStoreSweepConformanceKit implements SweepStoreUnderTest {

	@Nested
	class Sweep extends SweepConformance {

	}

	@Nested
	class ActiveLeaseLimits extends ActiveLeaseLimitConformance {

	}

}
