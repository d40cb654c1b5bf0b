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
	 * Every revision is forged: its token is above the highest token the lease store ever issued for its identity,
	 * or its lock identity differs from the document's mark.
	 */
	FORGED,
	/** CouchDB or Redis could not answer: nothing is known. */
	BACKEND_UNAVAILABLE

}
