package io.starintel.lease.worker;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;

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
final class WorkerEnvelopes {

	private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
		.withZone(ZoneOffset.UTC);

	/** Default retry hints of retryable codes without a hint from the store. */
	static final long CONFLICT_RETRY_MS = 250;

	static final long BACKEND_RETRY_MS = 500;

	static final long DEADLINE_RETRY_MS = 0;

	private WorkerEnvelopes() {
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
		ObjectNode body = JsonNodeFactory.instance.objectNode();
		body.put("status", "success");
		body.put("code", result.code().wireName());
		body.put("correlation_id", correlationId);
		LeaseRecord lease = result.lease();
		body.set("lease", lease(lease));
		if (result.replayed()) {
			body.put("replayed", true);
			if (result.currentState() != null) {
				body.put("current_state", result.currentState().wireName());
			}
		}
		return new WorkerResponse(result.code().httpStatus(), WorkerJson.MAPPER.writeValueAsString(body), 0);
	}

	/** An error envelope; {@code detail} (only for invalid_lease_request) names a field and rule, never a value. */
	static WorkerResponse error(ResultCode code, String correlationId, long retryAfterMs, @Nullable String detail) {
		ObjectNode body = JsonNodeFactory.instance.objectNode();
		body.put("status", "error");
		body.put("code", code.wireName());
		body.put("msg", message(code, detail));
		body.put("correlation_id", correlationId);
		body.put("retryable", code.retryable());
		long hint = 0;
		if (code.retryable()) {
			hint = (retryAfterMs > 0) ? retryAfterMs : defaultHint(code);
			body.put("retry_after_ms", hint);
		}
		return new WorkerResponse(code.httpStatus(), WorkerJson.MAPPER.writeValueAsString(body), hint);
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

	/** Fixed, safe message of each code. */
	static String message(ResultCode code, @Nullable String detail) {
		switch (code) {
			case INVALID_LEASE_REQUEST:
				return (detail != null) ? "Invalid lease request (" + detail + ")" : "Invalid lease request";
			case INVALID_CREDENTIAL:
				return "Authentication required";
			case ACCESS_DENIED:
				return "Access denied";
			case LEASE_NOT_FOUND:
				return "Target lease not found";
			case DEADLINE_EXCEEDED:
				return "Deadline exceeded before submission";
			case LEASE_CONFLICT:
				return "Target lease is unavailable";
			case LEASE_LOST:
				return "Target lease is not the caller's active lease";
			case IDEMPOTENCY_CONFLICT:
				return "Request id was reused with different inputs";
			case LEASE_RATE_LIMITED:
				return "Too many lease operations; retry later";
			case LEASE_BACKEND_UNAVAILABLE:
				return "Lease service unavailable";
			case LEASE_OUTCOME_UNKNOWN:
				return "Outcome unknown; retry or resolve with the same request_id";
			default:
				return "Lease operation failed";
		}
	}

	private static ObjectNode lease(LeaseRecord lease) {
		ObjectNode node = JsonNodeFactory.instance.objectNode();
		ObjectNode identity = node.putObject("lock_identity");
		List<String> components = lease.identity().components();
		for (int i = 0; i < components.size(); i++) {
			identity.put(LockIdentity.COMPONENTS.get(i), components.get(i));
		}
		node.put("lease_id", lease.leaseId());
		node.put("fencing_token", lease.fencingToken());
		node.put("acquired_at", iso(lease.acquiredAt()));
		node.put("renewed_at", iso(lease.renewedAt()));
		node.put("expires_at", iso(lease.expiresAt()));
		node.put("ttl_ms", lease.ttlMs());
		node.put("state", lease.state().wireName());
		return node;
	}

	private static String iso(Instant instant) {
		return ISO_MILLIS.format(instant);
	}

}
