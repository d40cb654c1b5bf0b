package io.starintel.lease.test.conformance;

import java.time.Instant;
import java.util.UUID;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LockIdentity;
import org.junit.jupiter.api.BeforeEach;

/**
 * What both conformance kits ({@link LeaseStoreConformanceKit}, {@link LeaseStoreSweepConformanceKit}) share: the
 * store under test, a fresh program per test (so that classes can run in parallel against a shared backend), the
 * identities and requests of that program, and the backend clock.
 */
abstract class ConformanceFixture {

	/** The store the current test works on (set before each test; a test may replace it). */
	protected LeaseStore store;

	/** The current test's own program id, fresh for each test. */
	protected String program;

	/** The store each test starts with (the kit's own creation hook). */
	abstract LeaseStore storeForEachTest();

	/** Moves backend time forward (a fake clock) or waits until it has moved (a real server). */
	protected abstract void advanceBackendTime(long millis);

	@BeforeEach
	void setUpStore() {
		this.store = storeForEachTest();
		this.program = "p-" + UUID.randomUUID().toString().substring(0, 8);
	}

	/** An identity of the current test's program for {@code target}. */
	protected LockIdentity identity(String target) {
		return LockIdentity.of("tenant-kit", this.program, "starintel-target", target, "usernamegen", "default", null);
	}

	/** A request deadline 30 s ahead. */
	protected static Instant deadline() {
		return Instant.now().plusSeconds(30);
	}

	/** A fresh acquire request (new request id) of {@code owner} with the given TTL and a 300 s maximum lifetime. */
	protected static AcquireRequest acquireRequest(LockIdentity identity, String owner, long ttlMs) {
		return new AcquireRequest(identity, Identifiers.generate("request"), deadline(),
				new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), ttlMs, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty());
	}

}
