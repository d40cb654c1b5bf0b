package io.starintel.lease.test.conformance;

import org.junit.jupiter.api.Nested;

/**
 * The one statement of what a {@link io.starintel.lease.store.LeaseStore} does: one test per row of the contract's
 * transition table and per row of its race/failure table that a store can show, in one suite per contract area. A
 * provider test extends this class and supplies the store through the {@link LeaseStoreUnderTest} hooks; every
 * suite below runs as a {@code @Nested} class of it, each test with its own {@link LeaseStoreFixture} (a fresh store
 * and program, so that classes can run in parallel against a shared backend).
 *
 * <pre>{@code
 * class MyLeaseStoreConformanceTests extends LeaseStoreConformanceKit {
 *     public LeaseStore createStore() { return new MyLeaseStore(server, policy); }
 *     public LeaseStore createStoreWithAttachedKeyLimit(int maximumKeys) { ... }
 *     public void advanceBackendTime(long millis) { ... } // move a fake clock, or wait on the server's
 *     public void setFencingCounter(LockIdentity identity, long value) { ... }
 * }
 * }</pre>
 *
 * A test that wants only some areas implements {@link LeaseStoreUnderTest} itself and nests those suites, e.g.
 * {@code @Nested class Renewal extends RenewalConformance {}}. The expiry sweep and the lease limits are
 * {@link LeaseStoreSweepConformanceKit}.
 */
public abstract class LeaseStoreConformanceKit implements LeaseStoreUnderTest {

	@Nested
	class AcquireAndRelease extends AcquireReleaseConformance {

	}

	@Nested
	class Renewal extends RenewalConformance {

	}

	@Nested
	class Expiry extends ExpiryConformance {

	}

	@Nested
	class Idempotency extends IdempotencyConformance {

	}

	@Nested
	class ListAndAdmin extends ListAndAdminConformance {

	}

	@Nested
	class AttachedKeys extends AttachedKeyConformance {

	}

	@Nested
	class FencingAndCommit extends FencingConformance {

	}

	@Nested
	class Races extends RaceConformance {

	}

}
