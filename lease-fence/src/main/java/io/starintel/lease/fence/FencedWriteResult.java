package io.starintel.lease.fence;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.Reason;

/**
 * Typed result of one fenced write (a document write, a publish, a checkpoint).
 *
 * <p>Contract: backend booleans, raw errors and raw lock keys never cross the fenced-write adapter; {@code detail}
 * is a short safe hint (e.g. the server's validation message), never a key, credential or stack trace.
 *
 * @param outcome the typed outcome
 * @param reason refinement of a {@link FenceOutcome#LEASE_LOST} (expired, stale lease, lower token)
 * @param correlationId correlation id of the authorization
 * @param detail safe hint, or {@code null}
 * @param stamp what was (or would have been) recorded with the write, or {@code null} when not authorized
 * @param documentId the id of the CouchDB document the write went to, once CouchDB was asked to store it (what
 * {@code FencedDocuments.retryMark} checks), else {@code null} (a publish, a checkpoint, a refusal before anything
 * was sent)
 */
public record FencedWriteResult(FenceOutcome outcome, Reason reason, String correlationId, @Nullable String detail,
		@Nullable FenceStamp stamp, @Nullable String documentId) {

	/** A result of a write that names no CouchDB document (a publish, a checkpoint, a refusal). */
	public FencedWriteResult(FenceOutcome outcome, Reason reason, String correlationId, @Nullable String detail,
			@Nullable FenceStamp stamp) {
		this(outcome, reason, correlationId, detail, stamp, null);
	}

	/**
	 * Whether the write was accepted (and stands): {@link FenceOutcome#ACCEPTED}, or
	 * {@link FenceOutcome#ACCEPTED_MARK_PENDING} when only its durable mark is still to be raised, or
	 * {@link FenceOutcome#ACCEPTED_MARK_REFUSED} when its durable mark can never be raised.
	 */
	public boolean isAccepted() {
		return this.outcome == FenceOutcome.ACCEPTED || this.outcome == FenceOutcome.ACCEPTED_MARK_PENDING
				|| this.outcome == FenceOutcome.ACCEPTED_MARK_REFUSED;
	}

	/** Whether the write was accepted but its durable mark is not confirmed yet ({@link FenceOutcome#ACCEPTED_MARK_PENDING}). */
	public boolean isMarkPending() {
		return this.outcome == FenceOutcome.ACCEPTED_MARK_PENDING;
	}

	/** A result refusing a write for the given outcome. */
	public static FencedWriteResult refused(FenceOutcome outcome, Reason reason, String correlationId,
			@Nullable String detail, @Nullable FenceStamp stamp) {
		return new FencedWriteResult(outcome, reason, correlationId, detail, stamp);
	}

	/** This result with another outcome and detail (keeps correlation id, stamp and document id). */
	public FencedWriteResult with(FenceOutcome newOutcome, Reason newReason, @Nullable String newDetail) {
		return new FencedWriteResult(newOutcome, newReason, this.correlationId, newDetail, this.stamp, this.documentId);
	}

	/** This result naming the CouchDB document the write went to. */
	public FencedWriteResult withDocumentId(@Nullable String id) {
		return new FencedWriteResult(this.outcome, this.reason, this.correlationId, this.detail, this.stamp, id);
	}

}
