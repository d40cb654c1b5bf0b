package io.starintel.lease.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.Identifiers;

/**
 * Input of authorize-commit (the fenced-write check).
 *
 * <p>Contract: the exact lease id, owner and fencing token must be the active, unexpired record at backend time,
 * and the token must not be below the identity's durable high-water mark, which authorization raises.
 *
 * <p>{@code caller} names who asks (the acting credential id and trace, execution and job ids) for the audit event
 * only; the store does not compare it.
 *
 * @param handle the exact holder
 * @param correlationId the correlation id
 * @param deadlineAt the request deadline
 * @param caller who asks (audit only), or {@code null}
 */
public record CommitRequest(LeaseHandle handle, String correlationId, Instant deadlineAt,
		@Nullable RequestCaller caller) {

	/** Validates presence and identifiers. */
	public CommitRequest {
		RequestFields.requireHandle(handle);
		Identifiers.require("correlation_id", correlationId);
		RequestFields.requireDeadline(deadlineAt);
	}

	/** An authorization that does not name its caller. */
	public CommitRequest(LeaseHandle handle, String correlationId, Instant deadlineAt) {
		this(handle, correlationId, deadlineAt, null);
	}

	/** This authorization, asked by {@code caller} (audit only). */
	public CommitRequest withCaller(@Nullable RequestCaller caller) {
		return new CommitRequest(this.handle, this.correlationId, this.deadlineAt, caller);
	}

}
