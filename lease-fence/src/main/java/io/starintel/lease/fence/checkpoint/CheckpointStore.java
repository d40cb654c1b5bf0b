package io.starintel.lease.fence.checkpoint;

import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.context.LeaseContext;

/**
 * Fenced job checkpoints and terminal states, one per lock identity.
 *
 * <p>Contract: job checkpoint and terminal-state writes are fenced: the write is accepted only if, at the same
 * backend linearization point, the exact lease is active and unexpired and its token is not below the identity's
 * high-water mark nor below the token of the stored checkpoint. Writes are idempotent by their request id (the
 * result's correlation id): the same write sent again with that id answers what the first run decided. Every call
 * is bounded by its deadline; results are typed; nothing throws backend errors.
 */
public interface CheckpointStore {

	/** Writes a checkpoint of the given leased execution (validation and write are one atomic step), new request id. */
	FencedWriteResult write(LeaseContext context, CheckpointState state, String progress);

	/**
	 * Writes a checkpoint under the given request id. After {@code lease_outcome_unknown} (or any lost answer), send
	 * the same write with the result's correlation id: it answers what the first run did, or runs now if it never ran.
	 */
	FencedWriteResult write(LeaseContext context, CheckpointState state, String progress, String requestId);

	/** Writes a checkpoint of the execution bound to the current thread ({@code no_lease_context} without one). */
	FencedWriteResult writeCurrent(CheckpointState state, String progress);

	/** The stored checkpoint of an identity (typed: found, not found, corrupt, backend unavailable). */
	CheckpointRead read(LockIdentity identity);

}
