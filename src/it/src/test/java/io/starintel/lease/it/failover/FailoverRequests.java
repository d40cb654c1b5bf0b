package io.starintel.lease.it.failover;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.internal.Identifiers;

/** Requests of the failover suites: one tenant, a fresh program per scenario, short deadlines. */
public final class FailoverRequests {

	public static final String TENANT = "tenant-failover";

	public static final String ADMIN = "prn_failover_admin";

	private FailoverRequests() {
	}

	/** A fresh program name. */
	public static String newProgram() {
		return "pf-" + UUID.randomUUID().toString().substring(0, 12);
	}

	public static LockIdentity identity(String program, String target) {
		return LockIdentity.of(TENANT, program, "starintel-target", target, "usernamegen", "default", null);
	}

	public static Instant in(Duration duration) {
		return Instant.now().plus(duration);
	}

	public static AcquireRequest acquire(LockIdentity identity, String owner, Duration ttl, Duration deadline) {
		return new AcquireRequest(identity, Identifiers.generate("request"), in(deadline),
				new LeaseOwner(owner, "client_" + owner, "key_" + owner, "instance_" + owner), ttl.toMillis(),
				Math.max(ttl.toMillis(), 300_000), Identifiers.generate("execution"), "job_failover", "trace_failover",
				LeaseMetadata.empty());
	}

	public static RenewRequest renew(LeaseRecord lease, Duration deadline) {
		return new RenewRequest(lease.handle(), Identifiers.generate("request"), in(deadline));
	}

	public static ReleaseRequest release(LeaseRecord lease, Duration deadline) {
		return new ReleaseRequest(lease.handle(), Identifiers.generate("request"), in(deadline));
	}

	public static AdminRequest revoke(LeaseRecord lease, Duration deadline) {
		return admin(Operation.REVOKE, lease.identity(), lease.leaseId(), lease.fencingToken(), deadline);
	}

	public static AdminRequest admin(Operation operation, LockIdentity identity, String leaseId, long token,
			Duration deadline) {
		return new AdminRequest(operation, identity, Identifiers.generate("request"), in(deadline), leaseId, token,
				ADMIN, "key_failover_admin", "failover-test");
	}

	public static CommitRequest commit(LeaseRecord lease, Duration deadline) {
		return new CommitRequest(lease.handle(), Identifiers.generate("corr"), in(deadline));
	}

	public static InspectRequest inspect(LockIdentity identity, Duration deadline) {
		return InspectRequest.byIdentity(identity, Identifiers.generate("corr"), in(deadline));
	}

}
