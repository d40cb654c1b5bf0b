package io.starintel.lease.fence.couchdb;

/** What a fenced CouchDB read found. Only {@link #CURRENT} returns a document as current. */
public enum FencedReadStatus {

	/** The fenced revision with the highest accepted token; not below the document's durable mark. */
	CURRENT,
	/** No such document. */
	NOT_FOUND,
	/** The document's current fenced state is a tombstone ({@code starintel_deleted}). */
	DELETED,
	/** The document carries no fence (never written by a fenced writer): not a fenced read. */
	UNFENCED,
	/**
	 * The best revision's token is below the document's durable mark: a stale re-creation (for example after a
	 * {@code _purge}); never returned as current.
	 */
	BELOW_MARK,
	/**
	 * No revision carries a fence the lease store issued for the document's identity: a malformed fence, another
	 * identity than the mark's, an identity never granted a lease, a token above its issued counter, the mark's token
	 * with another lease id than the mark kept, or a token above the mark whose (lease id, token) pair the store never
	 * issued ({@code DocumentFence}, docs/fencing.md).
	 */
	FORGED,
	/** CouchDB or Redis could not answer: nothing is known. */
	BACKEND_UNAVAILABLE

}
