package io.starintel.lease.test.conformance;

import java.time.Instant;
import java.util.UUID;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.internal.Identifiers;

/**
 * The fresh program one test works in (so that suites can run in parallel against a shared backend), with its
 * identities and acquire requests: the part both fixtures ({@link LeaseStoreFixture}, {@link SweepFixture}) hold.
 */
final class ConformanceProgram {

	static final String TENANT = "tenant-kit";

	private final String id = "p-" + UUID.randomUUID().toString().substring(0, 8);

	/** The program id. */
	String id() {
		return this.id;
	}

	/** The program's scope. */
	ProgramScope scope() {
		return ProgramScope.of(TENANT, this.id);
	}

	/** An identity of the program for {@code target}. */
	LockIdentity identity(String target) {
		return LockIdentity.of(TENANT, this.id, "starintel-target", target, "usernamegen", "default", null);
	}

	/** A request deadline 30 s ahead. */
	static Instant deadline() {
		return Instant.now().plusSeconds(30);
	}

	/** A fresh acquire request (new request id) of {@code owner} with the given TTL and a 300 s maximum lifetime. */
	static AcquireRequest acquireRequest(LockIdentity identity, String owner, long ttlMs) {
		return new AcquireRequest(identity, Identifiers.generate("request"), deadline(),
				new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), ttlMs, 300_000,
				Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty());
	}

}
