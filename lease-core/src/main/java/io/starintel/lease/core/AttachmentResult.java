package io.starintel.lease.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Typed result of one attached-key operation.
 *
 * <p>Successes: {@code attachment_stored} (put), {@code attachment_read} (get: {@code value} and the owning
 * {@code leaseId}), {@code attachment_deleted}, {@code attachments_listed} ({@code names} in ascending order, with
 * the {@code leaseId}). Failures use the contract's codes: {@code lease_lost} (the lease is not the active one),
 * {@code lease_conflict} ({@code attached_to_another_lease}), {@code lease_rate_limited}
 * ({@code attached_key_limit_reached}), {@code lease_not_found} ({@code attachment_not_found}, or {@code none} for a
 * list of a lease that is not active), {@code invalid_lease_request}, {@code idempotency_conflict},
 * {@code deadline_exceeded}, {@code lease_backend_unavailable}, {@code lease_outcome_unknown}. {@code replayed}
 * marks a result returned from an idempotency record; {@code detail} is a safe hint (field and rule, never a value).
 */
public record AttachmentResult(ResultCode code, Reason reason, @Nullable String name, @Nullable String value,
		@Nullable String leaseId, List<String> names, boolean replayed, @Nullable Instant decidedAt,
		@Nullable String detail) {

	/** Checks presence of the code and reason and copies the names. */
	public AttachmentResult {
		if (code == null || reason == null) {
			throw new IllegalArgumentException("code and reason are required");
		}
		names = List.copyOf(names);
	}

	/** A success of put or delete. */
	public static AttachmentResult done(ResultCode code, String name, Instant decidedAt) {
		return new AttachmentResult(code, Reason.NONE, name, null, null, List.of(), false, decidedAt, null);
	}

	/** A successful get. */
	public static AttachmentResult read(String name, String value, String leaseId, Instant decidedAt) {
		return new AttachmentResult(ResultCode.ATTACHMENT_READ, Reason.NONE, name, value, leaseId, List.of(), false,
				decidedAt, null);
	}

	/** A successful list. */
	public static AttachmentResult listed(String leaseId, List<String> names, Instant decidedAt) {
		return new AttachmentResult(ResultCode.ATTACHMENTS_LISTED, Reason.NONE, null, null, leaseId, names, false,
				decidedAt, null);
	}

	/** A failure. */
	public static AttachmentResult failure(ResultCode code, Reason reason, @Nullable Instant decidedAt) {
		return new AttachmentResult(code, reason, null, null, null, List.of(), false, decidedAt, null);
	}

	/** {@code invalid_lease_request} with the exception's message (field and rule) as detail. */
	public static AttachmentResult invalid(InvalidLeaseRequestException ex) {
		return new AttachmentResult(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null, null, null, List.of(), false,
				null, ex.getMessage());
	}

	/** This result as a replay of the stored original. */
	public AttachmentResult asReplay() {
		return new AttachmentResult(this.code, this.reason, this.name, this.value, this.leaseId, this.names, true,
				this.decidedAt, this.detail);
	}

	/** Whether the operation completed. */
	public boolean isSuccess() {
		return this.code.isSuccess();
	}

	@Override
	public String toString() {
		return "AttachmentResult[code=" + this.code.wireName() + ", reason=" + this.reason.wireName() + ", replayed="
				+ this.replayed + ", names=" + this.names.size() + "]";
	}

}
