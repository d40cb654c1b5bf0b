package io.starintel.lease.test.conformance;

import java.time.Duration;
import java.time.Instant;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What one test of the sweep and limit suites works with: the store (from the provider's
 * {@link SweepStoreUnderTest}, with {@link #TEST_POLICY}), more stores over the same backend, a fresh program, and
 * sweeping and inspecting in it. Every suite builds one per test; none inherits it.
 */
public final class SweepFixture {

	/** The TTL of leases meant to expire during a test. */
	public static final long SHORT_TTL_MS = 300;

	/** The policy of the suites: TTLs from 100 ms, so that expiry shows in well under a second. */
	public static final LeasePolicy TEST_POLICY = LeasePolicy.defaults()
		.withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10));

	private final SweepStoreUnderTest underTest;

	private final ConformanceProgram program = new ConformanceProgram();

	private final LeaseStore store;

	/** A fixture with a new store of {@code underTest} ({@link #TEST_POLICY}) and a fresh program. */
	public SweepFixture(SweepStoreUnderTest underTest) {
		this.underTest = underTest;
		this.store = underTest.createStore(TEST_POLICY);
	}

	/** The store the test works on. */
	public LeaseStore store() {
		return this.store;
	}

	/** A store of the provider with the given policy. */
	public LeaseStore createStore(LeasePolicy policy) {
		return this.underTest.createStore(policy);
	}

	/** Another store over the same backend data as {@link #store()}. */
	public LeaseStore sameBackend() {
		return this.underTest.sameBackend(this.store);
	}

	/** Moves backend time forward, or waits until it has moved. */
	public void advanceBackendTime(long millis) {
		this.underTest.advanceBackendTime(millis);
	}

	/** The test's own program id. */
	public String program() {
		return this.program.id();
	}

	/** The test's program. */
	public ProgramScope scope() {
		return this.program.scope();
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

	/** Acquires {@code identity} on {@code store} with the given TTL, asserting that it was granted. */
	public LeaseRecord acquired(LeaseStore store, LockIdentity identity, long ttlMs) {
		LeaseResult result = store.acquire(acquireRequest(identity, "alice", ttlMs));
		assertThat(result.code()).as(result.toString()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	/** Sweeps the test's program, at most {@code batch} leases. */
	public SweepResult sweep(int batch) {
		return this.store.sweepExpired(new SweepRequest(scope(), batch, deadline()));
	}

	/** Whether inspect finds an active lease of {@code identity}. */
	public boolean inspectFinds(LockIdentity identity) {
		return this.store.inspect(InspectRequest.byIdentity(identity, "corr_1", deadline()))
			.code() == ResultCode.LEASE_INSPECTED;
	}

}
