package io.starintel.lease.http.internal;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;

/**
 * The contract's HTTP envelopes, the parts both adapters share.
 *
 * <p>Contract: every response includes a {@code correlation_id}; errors are {@code {status, code, msg,
 * correlation_id, retryable, retry_after_ms?}} with a fixed message per code, never another owner's identity, a raw
 * lock key, a backend name, connection details, a stack trace or a backend error; a lease is shown only with its
 * authorized non-secret fields ({@code lock_identity}, {@code lease_id}, {@code fencing_token}, timestamps,
 * {@code ttl_ms}, {@code state}; never the lock key, credential or client ids, metadata or trace id).
 */
public final class HttpEnvelope {

	private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
		.withZone(ZoneOffset.UTC);

	private HttpEnvelope() {
	}

	/** The head of a success envelope: {@code status}, {@code code}, {@code correlation_id}. */
	public static ObjectNode success(ResultCode code, String correlationId) {
		ObjectNode body = JsonNodeFactory.instance.objectNode();
		body.put("status", "success");
		body.put("code", code.wireName());
		body.put("correlation_id", correlationId);
		return body;
	}

	/**
	 * An error envelope without {@code retry_after_ms} (each adapter adds its retry hint: the contract makes it
	 * optional).
	 * @param message the fixed message of the code ({@link #message})
	 */
	public static ObjectNode error(ResultCode code, String correlationId, String message) {
		ObjectNode body = JsonNodeFactory.instance.objectNode();
		body.put("status", "error");
		body.put("code", code.wireName());
		body.put("msg", message);
		body.put("correlation_id", correlationId);
		body.put("retryable", code.retryable());
		return body;
	}

	/**
	 * The fixed, safe message of each code; {@code detail} (only for invalid_lease_request) names a field and rule,
	 * never a value; {@code lost} and {@code unknown} are the adapter's wording of {@code lease_lost} and
	 * {@code lease_outcome_unknown}.
	 */
	public static String message(ResultCode code, @Nullable String detail, String lost, String unknown) {
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
				return lost;
			case IDEMPOTENCY_CONFLICT:
				return "Request id was reused with different inputs";
			case LEASE_RATE_LIMITED:
				return "Too many lease operations; retry later";
			case LEASE_BACKEND_UNAVAILABLE:
				return "Lease service unavailable";
			case LEASE_OUTCOME_UNKNOWN:
				return unknown;
			default:
				return "Lease operation failed";
		}
	}

	/** A lease's authorized fields, and with {@code holder} its owner principal, instance, execution and job id. */
	public static ObjectNode lease(LeaseRecord lease, boolean holder) {
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
		if (holder) {
			ObjectNode owner = node.putObject("holder");
			owner.put("owner_principal_id", lease.owner().principalId());
			owner.put("service_instance_id", lease.owner().serviceInstanceId());
			owner.put("execution_id", lease.executionId());
			owner.put("job_id", lease.jobId());
		}
		return node;
	}

	/** Millisecond ISO-8601 UTC, as every envelope writes instants. */
	public static String iso(Instant instant) {
		return ISO_MILLIS.format(instant);
	}

	/** The JSON text of an envelope. */
	public static String write(ObjectNode body) {
		return StrictJson.MAPPER.writeValueAsString(body);
	}

}
