package io.starintel.lease.admin;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contract's HTTP envelopes.
 *
 * <p>Contract: every response includes a {@code correlation_id}; success returns only authorized non-secret fields
 * ({@code lock_identity}, {@code lease_id}, {@code fencing_token}, timestamps, {@code ttl_ms}, {@code state}; for list
 * and inspect, whose callers are authorized for the lease's scope with {@code targets:read}, also the {@code holder}:
 * owner principal, service instance, execution and job id; never the lock key, credential or client ids, metadata or
 * trace id); errors are {@code {status, code, msg, correlation_id,
 * retryable, retry_after_ms?}} with a fixed message per code, never another owner's identity, a raw lock key, a backend
 * name, connection details, a stack trace or a backend error.
 */
public final class Envelopes {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
		.withZone(ZoneOffset.UTC);

	private Envelopes() {
	}

	/** A success envelope with one lease. */
	public static String success(ResultCode code, String correlationId, LeaseRecord lease) {
		return success(code, correlationId, lease, false);
	}

	/** A success envelope with one lease, with its {@code holder} when {@code holder}. */
	public static String success(ResultCode code, String correlationId, LeaseRecord lease, boolean holder) {
		ObjectNode body = head("success", code, correlationId);
		body.set("lease", lease(lease, holder));
		return MAPPER.writeValueAsString(body);
	}

	/** A list envelope: {@code leases} and {@code next_cursor} (null on the last page). */
	public static String page(String correlationId, List<LeaseRecord> leases, @Nullable String nextCursor) {
		return page(correlationId, leases, nextCursor, false);
	}

	/** A list envelope, each lease with its {@code holder} when {@code holder}. */
	public static String page(String correlationId, List<LeaseRecord> leases, @Nullable String nextCursor,
			boolean holder) {
		ObjectNode body = head("success", ResultCode.LEASE_LISTED, correlationId);
		ArrayNode array = body.putArray("leases");
		for (LeaseRecord lease : leases) {
			array.add(lease(lease, holder));
		}
		if (nextCursor != null) {
			body.put("next_cursor", nextCursor);
		}
		else {
			body.putNull("next_cursor");
		}
		return MAPPER.writeValueAsString(body);
	}

	/** An error envelope; {@code detail} (only for invalid_lease_request) names a field and rule, never a value. */
	public static String error(ResultCode code, String correlationId, long retryAfterMs, @Nullable String detail) {
		ObjectNode body = JsonNodeFactory.instance.objectNode();
		body.put("status", "error");
		body.put("code", code.wireName());
		body.put("msg", message(code, detail));
		body.put("correlation_id", correlationId);
		body.put("retryable", code.retryable());
		if (retryAfterMs > 0) {
			body.put("retry_after_ms", retryAfterMs);
		}
		return MAPPER.writeValueAsString(body);
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
				return "Target lease is not the observed active lease";
			case IDEMPOTENCY_CONFLICT:
				return "Request id was reused with different inputs";
			case LEASE_RATE_LIMITED:
				return "Too many lease operations; retry later";
			case LEASE_BACKEND_UNAVAILABLE:
				return "Lease service unavailable";
			case LEASE_OUTCOME_UNKNOWN:
				return "Outcome unknown; retry with the same request_id";
			default:
				return "Lease operation failed";
		}
	}

	private static ObjectNode head(String status, ResultCode code, String correlationId) {
		ObjectNode body = JsonNodeFactory.instance.objectNode();
		body.put("status", status);
		body.put("code", code.wireName());
		body.put("correlation_id", correlationId);
		return body;
	}

	private static ObjectNode lease(LeaseRecord lease, boolean holder) {
		ObjectNode node = JsonNodeFactory.instance.objectNode();
		ObjectNode identity = node.putObject("lock_identity");
		LockIdentity id = lease.identity();
		List<String> components = id.components();
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
		if (holder) {
			ObjectNode owner = node.putObject("holder");
			owner.put("owner_principal_id", lease.owner().principalId());
			owner.put("service_instance_id", lease.owner().serviceInstanceId());
			owner.put("execution_id", lease.executionId());
			owner.put("job_id", lease.jobId());
		}
		return node;
	}

	private static String iso(Instant instant) {
		return ISO_MILLIS.format(instant);
	}

}
