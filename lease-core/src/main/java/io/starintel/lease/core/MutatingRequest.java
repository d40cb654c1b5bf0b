package io.starintel.lease.core;

import java.time.Instant;

/**
 * A request that changes lease state: it carries a globally unique request id, a finite deadline and a digest
 * of its behaviour-affecting inputs.
 */
public sealed interface MutatingRequest permits AcquireRequest, RenewRequest, ReleaseRequest, AdminRequest {

	/** The operation, which scopes the idempotency record. */
	Operation operation();

	/** The identity acted on. */
	LockIdentity identity();

	/** The principal that scopes the idempotency key (owner or administrator). */
	String principalId();

	/** Globally unique request id: the idempotency key within operation, lock key and principal. */
	String requestId();

	/** Finite deadline, checked against backend time before any mutation. */
	Instant deadlineAt();

	/** Digest over every behaviour-affecting input. */
	String digest();

}
