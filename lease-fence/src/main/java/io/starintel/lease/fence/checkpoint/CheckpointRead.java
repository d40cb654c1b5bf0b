package io.starintel.lease.fence.checkpoint;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Typed result of {@link CheckpointStore#read}.
 *
 * @param status what was found
 * @param checkpoint the checkpoint when {@link CheckpointReadStatus#FOUND}, else {@code null}
 */
public record CheckpointRead(CheckpointReadStatus status, @Nullable Checkpoint checkpoint) {

	/** The checkpoint, when one was found. */
	public Optional<Checkpoint> found() {
		return Optional.ofNullable(this.checkpoint);
	}

	static CheckpointRead of(CheckpointReadStatus status) {
		return new CheckpointRead(status, null);
	}

}
