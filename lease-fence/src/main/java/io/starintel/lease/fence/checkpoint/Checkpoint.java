package io.starintel.lease.fence.checkpoint;

import java.time.Instant;

/**
 * A stored checkpoint: state, progress text and the fence it was accepted under (token, lease, execution, trace,
 * backend time).
 */
public record Checkpoint(CheckpointState state, String progress, long fencingToken, String leaseId,
		String executionId, String traceId, Instant updatedAt) {
}
