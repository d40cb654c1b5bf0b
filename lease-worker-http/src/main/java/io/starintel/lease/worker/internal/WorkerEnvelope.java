package io.starintel.lease.worker.internal;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.http.internal.HttpEnvelope;

/**
 * The contract's HTTP envelopes for the worker API.
 *
 * <p>Contract: every response includes a {@code correlation_id}; success returns only authorized non-secret fields
 * (the lease's identity, id, token, timestamps, TTL and state: never the lock key, owner fields or metadata); errors are
 * {@code {status, code, msg, correlation_id, retryable, retry_after_ms}} with a fixed message per code and never another
 * owner's identity, a raw lock key, a backend name, a stack trace or a backend error. {@code retry_after_ms} is present
 * exactly when the code is retryable. A replayed result (same {@code request_id}) adds {@code replayed: true} and the
 * lease's {@code current_state} (contract: the original result plus the current terminal state).
 */
final class WorkerEnvelope {

	/** Default retry hints of retryable codes without a hint from the store. */
	static final long CONFLICT_RETRY_MS = 250;

	static final long BACKEND_RETRY_MS = 500;

	static final long DEADLINE_RETRY_MS = 0;

	private WorkerEnvelope() {
	}

	/** The envelope of a typed result. */
	static WorkerResponse of(LeaseResult result, String correlationId) {
		if (result.isSuccess() && result.lease() != null) {
			return success(result, correlationId);
		}
		ResultCode code = result.isSuccess() ? ResultCode.LEASE_BACKEND_UNAVAILABLE : result.code();
		String detail = (code == ResultCode.INVALID_LEASE_REQUEST) ? result.detail() : null;
		return error(code, correlationId, result.retryAfterMs(), detail);
	}

	private static WorkerResponse success(LeaseResult result, String correlationId) {
		ObjectNode body = HttpEnvelope.success(result.code(), correlationId);
		LeaseRecord lease = result.lease();
		body.set("lease", HttpEnvelope.lease(lease, false));
		if (result.replayed()) {
			body.put("replayed", true);
			if (result.currentState() != null) {
				body.put("current_state", result.currentState().wireName());
			}
		}
		return new WorkerResponse(result.code().httpStatus(), HttpEnvelope.write(body), false, 0);
	}

	/** An error envelope; {@code detail} (only for invalid_lease_request) names a field and rule, never a value. */
	static WorkerResponse error(ResultCode code, String correlationId, long retryAfterMs, @Nullable String detail) {
		// the worker API always gives retryable codes a hint (retry_after_ms present exactly when retryable)
		long hint = code.retryable() ? ((retryAfterMs > 0) ? retryAfterMs : defaultHint(code)) : 0;
		ObjectNode body = HttpEnvelope.error(code, correlationId, message(code, detail));
		if (code.retryable()) {
			body.put("retry_after_ms", hint);
		}
		return new WorkerResponse(code.httpStatus(), HttpEnvelope.write(body), code.retryable(), hint);
	}

	private static long defaultHint(ResultCode code) {
		switch (code) {
			case LEASE_CONFLICT:
			case LEASE_RATE_LIMITED:
				return CONFLICT_RETRY_MS;
			case DEADLINE_EXCEEDED:
				return DEADLINE_RETRY_MS;
			default:
				return BACKEND_RETRY_MS;
		}
	}

	/** Fixed, safe message of each code (the shared table, with the worker's wording of lost and unknown). */
	static String message(ResultCode code, @Nullable String detail) {
		return HttpEnvelope.message(code, detail, "Target lease is not the caller's active lease",
				"Outcome unknown; retry or resolve with the same request_id");
	}

}
