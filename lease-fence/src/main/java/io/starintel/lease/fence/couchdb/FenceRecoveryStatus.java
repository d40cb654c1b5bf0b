package io.starintel.lease.fence.couchdb;

/** What a {@link FencedDocumentRecovery} did with a document. */
public enum FenceRecoveryStatus {

	/** The forged fence was replaced: the document carries its identity's issued counter as token. */
	RECOVERED("recovered"),
	/**
	 * Nothing changed: the lease store issued the document's fence for its identity (the fenced reader's rule: it
	 * would read the revision, not report it forged).
	 */
	NOT_FORGED("not_forged"),
	/** Nothing changed: the document carries no fence. */
	NOT_FENCED("not_fenced"),
	/** Nothing changed: no such document. */
	NOT_FOUND("not_found"),
	/**
	 * Nothing changed: there is no identity to recover the document to: no mark and no well-formed digest, or the
	 * lease store never issued a token for the identity. The fenced reader reports such a document as forged.
	 */
	UNKNOWN_IDENTITY("unknown_identity"),
	/**
	 * Nothing changed: CouchDB refused the recovery write (the connection's user lacks the role
	 * {@code starintel_fence_recovery}, or the installed design document predates recoveries).
	 */
	REFUSED_BY_SERVER("refused_by_server"),
	/** Nothing changed: the document changed while it was recovered; run the recovery again. */
	CONFLICT("conflict"),
	/** Nothing changed: CouchDB or Redis did not answer. */
	BACKEND_UNAVAILABLE("backend_unavailable"),
	/** The recovery write was sent and no answer came: read the document, or run the recovery again. */
	OUTCOME_UNKNOWN("outcome_unknown");

	private final String wireName;

	FenceRecoveryStatus(String wireName) {
		this.wireName = wireName;
	}

	/** The status as JSON and audit events spell it. */
	public String wireName() {
		return this.wireName;
	}

}
