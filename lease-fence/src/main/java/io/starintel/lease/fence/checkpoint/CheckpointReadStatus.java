package io.starintel.lease.fence.checkpoint;

/** What a checkpoint read found. */
public enum CheckpointReadStatus {

	/** A checkpoint is stored. */
	FOUND,
	/** No checkpoint is stored for the identity. */
	NOT_FOUND,
	/** The stored hash is not a checkpoint this store wrote (missing or malformed fields). */
	CORRUPT_RECORD,
	/** No answer before the deadline, or no connection: nothing is known. */
	BACKEND_UNAVAILABLE

}
