package io.starintel.lease.audit;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import org.jspecify.annotations.Nullable;

/**
 * One audit event of the target-lease contract.
 *
 * <p>Contract ("Each event records"): backend/server timestamp and latency; request, correlation, decision,
 * trace, execution and job ids; principal class/id, non-secret credential id and service instance id; the
 * canonical tenant/program/target/actor/workflow/operation scope; lease id and fencing token when disclosure is
 * safe; requested/effective TTL and deadline class; previous and resulting state; result code, retryability and
 * backend health class; administrator reason or incident id. By construction it has no field for credential
 * material, metadata, request bodies, raw lock keys or backend commands ("Audit events never contain ...").
 * Absent values are {@code null} and are left out of {@link #toFields()}.
 */
public record AuditEvent(AuditEventType eventType, Instant backendTime, long latencyMs, @Nullable String requestId,
		@Nullable String correlationId, String decisionId, @Nullable String traceId, @Nullable String executionId,
		@Nullable String jobId, PrincipalClass principalClass, @Nullable String principalId,
		@Nullable String credentialId, @Nullable String serviceInstanceId, @Nullable String tenantId,
		@Nullable String programId, @Nullable String targetNamespace, @Nullable String targetId,
		@Nullable String actorName, @Nullable String workflowName, @Nullable String operationClass,
		@Nullable String leaseId, @Nullable Long fencingToken, @Nullable Long requestedTtlMs,
		@Nullable Long effectiveTtlMs, @Nullable String deadlineClass, @Nullable String previousState,
		@Nullable String resultingState, ResultCode resultCode, boolean retryable, BackendHealth backendHealth,
		@Nullable String reason) {

	private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
		.withZone(ZoneOffset.UTC);

	/** Checks the always-present fields. */
	public AuditEvent {
		Objects.requireNonNull(eventType, "eventType");
		Objects.requireNonNull(backendTime, "backendTime");
		Objects.requireNonNull(decisionId, "decisionId");
		Objects.requireNonNull(principalClass, "principalClass");
		Objects.requireNonNull(resultCode, "resultCode");
		Objects.requireNonNull(backendHealth, "backendHealth");
	}

	/** A new builder. */
	public static AuditEventBuilder builder(AuditEventType type, ResultCode code) {
		return new AuditEventBuilder(type, code);
	}

	/** The program scope of the event, when it has one (events of unauthenticated requests have none). */
	public @Nullable ProgramScope scope() {
		return (this.tenantId != null && this.programId != null) ? new ProgramScope(this.tenantId, this.programId)
				: null;
	}

	/**
	 * Flat string fields with the wire names shared with the Redis store's in-script admin events
	 * ({@code event_type}, {@code backend_time}, {@code request_id}, ... {@code reason}), in a stable order.
	 */
	public Map<String, String> toFields() {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("event_type", this.eventType.wireName());
		fields.put("backend_time", ISO_MILLIS.format(this.backendTime.truncatedTo(ChronoUnit.MILLIS)));
		fields.put("latency_ms", Long.toString(this.latencyMs));
		put(fields, "request_id", this.requestId);
		put(fields, "correlation_id", this.correlationId);
		fields.put("decision_id", this.decisionId);
		put(fields, "trace_id", this.traceId);
		put(fields, "execution_id", this.executionId);
		put(fields, "job_id", this.jobId);
		fields.put("principal_class", this.principalClass.wireName());
		put(fields, "principal_id", this.principalId);
		put(fields, "credential_id", this.credentialId);
		put(fields, "service_instance_id", this.serviceInstanceId);
		put(fields, "tenant_id", this.tenantId);
		put(fields, "program_id", this.programId);
		put(fields, "target_namespace", this.targetNamespace);
		put(fields, "target_id", this.targetId);
		put(fields, "actor_name", this.actorName);
		put(fields, "workflow_name", this.workflowName);
		put(fields, "operation_class", this.operationClass);
		put(fields, "lease_id", this.leaseId);
		put(fields, "fencing_token", (this.fencingToken != null) ? Long.toString(this.fencingToken) : null);
		put(fields, "requested_ttl_ms", (this.requestedTtlMs != null) ? Long.toString(this.requestedTtlMs) : null);
		put(fields, "effective_ttl_ms", (this.effectiveTtlMs != null) ? Long.toString(this.effectiveTtlMs) : null);
		put(fields, "deadline_class", this.deadlineClass);
		put(fields, "previous_state", this.previousState);
		put(fields, "resulting_state", this.resultingState);
		fields.put("result_code", this.resultCode.wireName());
		fields.put("retryable", Boolean.toString(this.retryable));
		fields.put("backend_health", this.backendHealth.wireName());
		put(fields, "reason", this.reason);
		return fields;
	}

	private static void put(Map<String, String> fields, String name, @Nullable String value) {
		if (value != null) {
			fields.put(name, value);
		}
	}

}
