package io.starintel.lease.fence.checkpoint;

import java.util.Optional;

import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.job.LeaseContext;

/**
 * Fenced job checkpoints and terminal states, one per lock identity.
 *
 * <p>Contract: job checkpoint and terminal-state writes are fenced: the write is accepted only if, at the same
 * backend linearization point, the exact lease is active and unexpired and its token is not below the identity's
 * high-water mark nor below the token of the stored checkpoint. Results are typed; nothing throws backend errors.
 */
public interface CheckpointStore {

	/** Writes a checkpoint of the given leased execution (validation and write are one atomic step). */
	FencedWriteResult write(LeaseContext context, CheckpointState state, String progress);

	/** Writes a checkpoint of the execution bound to the current thread ({@code no_lease_context} without one). */
	FencedWriteResult writeCurrent(CheckpointState state, String progress);

	/** The stored checkpoint of an identity, if any. */
	Optional<Checkpoint> read(LockIdentity identity);

}
