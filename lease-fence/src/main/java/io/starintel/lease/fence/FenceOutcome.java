package io.starintel.lease.fence;

import io.starintel.lease.core.ResultCode;

/**
 * The closed set of outcomes of a fenced write; wire names follow the contract's result codes where one exists.
 *
 * <p>Contract: a fenced write returns a typed result; backend booleans and raw errors never cross the adapter.
 */
public enum FenceOutcome {

	/** Authorized at backend time and (for a write) accepted by the target store. */
	ACCEPTED("fenced_write_accepted"),
	/**
	 * Accepted and written (the write stands: never write it again as a new one), but the document's durable mark
	 * in Redis was not confirmed within its deadline: until it is raised ({@code FencedDocuments.retryMark}, or the
	 * document's next fenced write), the fenced reader cannot tell a purged-and-re-created stale document from this
	 * one. CouchDB only; docs/fencing.md.
	 */
	ACCEPTED_MARK_PENDING("fenced_write_accepted_mark_pending"),
	/**
	 * Accepted and written (the write stands), but Redis refused the document's durable mark for good: the mark of
	 * this document id names another lock identity (a mark never changes its identity: a document of that identity
	 * purged and re-created by this one, or a mark raised without a write of that identity). A retry can never
	 * succeed ({@code retryMark} answers it again); the fenced reader reports the document {@code FORGED} until an
	 * operator repairs the document or the mark. Logged at WARN. CouchDB only; docs/fencing.md.
	 */
	ACCEPTED_MARK_REFUSED("fenced_write_accepted_mark_refused"),
	/** Expired, stale, wrong-owner or lower-token holder (the contract's {@code lease_lost}). */
	LEASE_LOST("lease_lost"),
	/** The target store refused the write's revision ({@code _rev} conflict); nothing was overwritten. */
	CONFLICT("conflict"),
	/** No lease context is bound where the destination requires one; nothing was sent. */
	NO_LEASE_CONTEXT("no_lease_context"),
	/** The authorization could not start before its deadline; nothing was sent. */
	DEADLINE_EXCEEDED("deadline_exceeded"),
	/** The lease backend or the target store could not give a safe answer; no success is assumed. */
	BACKEND_UNAVAILABLE("lease_backend_unavailable"),
	/** A mandatory publish found no queue (returned by the broker); no consumer will see it. */
	UNROUTABLE("fenced_publish_unroutable"),
	/** The write was submitted but its result is unknown (e.g. no publisher confirm in time). */
	OUTCOME_UNKNOWN("lease_outcome_unknown"),
	/**
	 * The request cannot be sent as a fenced write (a CouchDB document that cannot carry the fence stamp or has no id
	 * where one is required, a bulk write naming one document id twice: its results could not be told apart; a
	 * {@code retryMark} that names another document, lease or identity than its result's; a RabbitMQ producer batch,
	 * or a {@code CorrelationData} already used); nothing was authorized or sent.
	 */
	INVALID_REQUEST("fenced_write_invalid_request");

	private final String wireName;

	FenceOutcome(String wireName) {
		this.wireName = wireName;
	}

	/** Stable wire name. */
	public String wireName() {
		return this.wireName;
	}

	/** Maps a lease-store result code of authorize-commit to the fenced-write outcome. */
	static FenceOutcome of(ResultCode code) {
		switch (code) {
			case LEASE_COMMIT_AUTHORIZED:
				return ACCEPTED;
			case DEADLINE_EXCEEDED:
				return DEADLINE_EXCEEDED;
			case LEASE_BACKEND_UNAVAILABLE:
			case LEASE_RATE_LIMITED:
				return BACKEND_UNAVAILABLE;
			case LEASE_OUTCOME_UNKNOWN:
				return OUTCOME_UNKNOWN;
			default:
				// lease_lost, lease_not_found, invalid handle, access denied: the holder has no authority
				return LEASE_LOST;
		}
	}

}
