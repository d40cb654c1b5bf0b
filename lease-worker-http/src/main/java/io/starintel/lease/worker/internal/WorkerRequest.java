package io.starintel.lease.worker.internal;

import java.time.Instant;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.RequestCaller;

/**
 * A parsed worker request: the identity, the deadline, the operation's own input ({@link Acquire}, {@link Renew},
 * a {@link LeaseHandle}, a lease id or the resolved operation) and, for renew, release and authorize-commit, who acts
 * (the credential and the optional ids the body names, for the audit event).
 */
record WorkerRequest(LockIdentity identity, Instant deadline, @Nullable String requestId, String serviceInstanceId,
		ObjectNode body, Object input, @Nullable RequestCaller acting) {

	/** Input of acquire: the request and the bounded wait. */
	record Acquire(AcquireRequest request, long waitMs) {
	}

	/** Input of renew: the handle and the optional new TTL. */
	record Renew(LeaseHandle handle, @Nullable Long ttlMs) {
	}

}
