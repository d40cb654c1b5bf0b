package io.starintel.lease.test.conformance;

import java.time.Duration;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hooks and helpers of {@link LeaseStoreSweepConformanceKit}: a store per policy, another client of the same
 * backend, the program's scope, and sweeping and inspecting in it.
 */
abstract class SweepConformanceFixture extends ConformanceFixture {

	/** The TTL of leases meant to expire during a test. */
	protected static final long SHORT_TTL_MS = 300;

	/** The policy of the suites: TTLs from 100 ms, so that expiry shows in well under a second. */
	protected static final LeasePolicy TEST_POLICY = LeasePolicy.defaults()
		.withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10));

	/** A store with the given policy (each call may return a new store over the same backend). */
	protected abstract LeaseStore createStore(LeasePolicy policy);

	/** Another store over the same backend data as {@link #store} (another client of the same server). */
	protected LeaseStore sameBackend() {
		return createStore(TEST_POLICY);
	}

	@Override
	final LeaseStore storeForEachTest() {
		return createStore(TEST_POLICY);
	}

	/** The current test's program. */
	protected ProgramScope scope() {
		return ProgramScope.of("tenant-kit", this.program);
	}

	/** Acquires {@code identity} on {@code store} with the given TTL, asserting that it was granted. */
	protected static LeaseRecord acquired(LeaseStore store, LockIdentity identity, long ttlMs) {
		LeaseResult result = store.acquire(acquireRequest(identity, "alice", ttlMs));
		assertThat(result.code()).as(result.toString()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	/** Sweeps the current test's program, at most {@code batch} leases. */
	protected SweepResult sweep(int batch) {
		return this.store.sweepExpired(new SweepRequest(scope(), batch, deadline()));
	}

	/** Whether inspect finds an active lease of {@code identity}. */
	boolean inspectFinds(LockIdentity identity) {
		return this.store.inspect(InspectRequest.byIdentity(identity, "corr_1", deadline()))
			.code() == ResultCode.LEASE_INSPECTED;
	}

}
