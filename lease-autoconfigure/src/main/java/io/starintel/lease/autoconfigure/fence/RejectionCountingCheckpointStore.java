package io.starintel.lease.autoconfigure.fence;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.checkpoint.CheckpointRead;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.CheckpointStore;

/**
 * The auto-configured {@link CheckpointStore}: its delegate, counting each refused write ({@code lease_lost},
 * {@code no_lease_context}) at the {@code checkpoint} enforcement point.
 */
final class RejectionCountingCheckpointStore implements CheckpointStore {

	private final CheckpointStore delegate;

	private final FenceRejectionMetrics metrics;

	RejectionCountingCheckpointStore(CheckpointStore delegate, FenceRejectionMetrics metrics) {
		this.delegate = delegate;
		this.metrics = metrics;
	}

	@Override
	public FencedWriteResult write(LeaseContext context, CheckpointState state, String progress) {
		return counted(this.delegate.write(context, state, progress));
	}

	@Override
	public FencedWriteResult write(LeaseContext context, CheckpointState state, String progress, String requestId) {
		return counted(this.delegate.write(context, state, progress, requestId));
	}

	@Override
	public FencedWriteResult writeCurrent(CheckpointState state, String progress) {
		return counted(this.delegate.writeCurrent(state, progress));
	}

	@Override
	public CheckpointRead read(LockIdentity identity) {
		return this.delegate.read(identity);
	}

	private FencedWriteResult counted(FencedWriteResult result) {
		if (result.outcome() == FenceOutcome.LEASE_LOST || result.outcome() == FenceOutcome.NO_LEASE_CONTEXT) {
			try {
				this.metrics.rejected(FenceRejectionMetrics.CHECKPOINT, result.outcome().wireName());
			}
			catch (RuntimeException ex) {
				// a meter failure never changes the answer
			}
		}
		return result;
	}

}
