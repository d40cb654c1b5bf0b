package io.starintel.lease.audit;

import java.time.Instant;
import java.time.LocalDate;
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

	/** The program scope of the event, when it has one (events of unauthenticated requests have none). */
	public @Nullable ProgramScope scope() {
		return (this.tenantId != null && this.programId != null) ? new ProgramScope(this.tenantId, this.programId)
				: null;
	}

	/** Receives the fields of an event, in their stable order ({@link #forEachField}). */
	@FunctionalInterface
	public interface FieldVisitor {

		/** One present field: its wire name and its text. */
		void field(String name, String value);

		/**
		 * One present numeric field (latency, fencing token, TTLs): by default its decimal text through
		 * {@link #field(String, String)}; a visitor that writes text can append the number without the string.
		 */
		default void longField(String name, long value) {
			field(name, Long.toString(value));
		}

	}

	/**
	 * Flat string fields with the wire names shared with the Redis store's in-script admin events
	 * ({@code event_type}, {@code backend_time}, {@code request_id}, ... {@code reason}), in a stable order.
	 */
	public Map<String, String> toFields() {
		Map<String, String> fields = new LinkedHashMap<>(48);
		forEachField(fields::put);
		return fields;
	}

	/**
	 * Hands every present field of {@link #toFields()} to {@code visitor}, in the same order, without building a
	 * map (the log sink's path).
	 */
	public void forEachField(FieldVisitor visitor) {
		visitor.field("event_type", this.eventType.wireName());
		visitor.field("backend_time", isoMillis(this.backendTime));
		visitor.longField("latency_ms", this.latencyMs);
		put(visitor, "request_id", this.requestId);
		put(visitor, "correlation_id", this.correlationId);
		visitor.field("decision_id", this.decisionId);
		put(visitor, "trace_id", this.traceId);
		put(visitor, "execution_id", this.executionId);
		put(visitor, "job_id", this.jobId);
		visitor.field("principal_class", this.principalClass.wireName());
		put(visitor, "principal_id", this.principalId);
		put(visitor, "credential_id", this.credentialId);
		put(visitor, "service_instance_id", this.serviceInstanceId);
		put(visitor, "tenant_id", this.tenantId);
		put(visitor, "program_id", this.programId);
		put(visitor, "target_namespace", this.targetNamespace);
		put(visitor, "target_id", this.targetId);
		put(visitor, "actor_name", this.actorName);
		put(visitor, "workflow_name", this.workflowName);
		put(visitor, "operation_class", this.operationClass);
		put(visitor, "lease_id", this.leaseId);
		put(visitor, "fencing_token", this.fencingToken);
		put(visitor, "requested_ttl_ms", this.requestedTtlMs);
		put(visitor, "effective_ttl_ms", this.effectiveTtlMs);
		put(visitor, "deadline_class", this.deadlineClass);
		put(visitor, "previous_state", this.previousState);
		put(visitor, "resulting_state", this.resultingState);
		visitor.field("result_code", this.resultCode.wireName());
		visitor.field("retryable", this.retryable ? "true" : "false");
		visitor.field("backend_health", this.backendHealth.wireName());
		put(visitor, "reason", this.reason);
	}

	private static void put(FieldVisitor visitor, String name, @Nullable String value) {
		if (value != null) {
			visitor.field(name, value);
		}
	}

	private static void put(FieldVisitor visitor, String name, @Nullable Long value) {
		if (value != null) {
			visitor.longField(name, value);
		}
	}

	/**
	 * {@code yyyy-MM-ddTHH:mm:ss.SSSZ} (UTC, truncated to milliseconds) for years 0000-9999, as {@link #ISO_MILLIS}
	 * prints it, without the formatter's intermediate objects; other years go through the formatter.
	 */
	static String isoMillis(Instant instant) {
		long ms = instant.toEpochMilli();
		long days = Math.floorDiv(ms, 86_400_000L);
		long rest = ms - days * 86_400_000L;
		LocalDate date = LocalDate.ofEpochDay(days);
		int year = date.getYear();
		if (year < 0 || year > 9999) {
			return ISO_MILLIS.format(instant.truncatedTo(ChronoUnit.MILLIS));
		}
		char[] out = new char[24];
		digits(out, 0, year, 4);
		out[4] = '-';
		digits(out, 5, date.getMonthValue(), 2);
		out[7] = '-';
		digits(out, 8, date.getDayOfMonth(), 2);
		out[10] = 'T';
		digits(out, 11, (int) (rest / 3_600_000L), 2);
		out[13] = ':';
		digits(out, 14, (int) (rest / 60_000L % 60), 2);
		out[16] = ':';
		digits(out, 17, (int) (rest / 1000 % 60), 2);
		out[19] = '.';
		digits(out, 20, (int) (rest % 1000), 3);
		out[23] = 'Z';
		return new String(out);
	}

	private static void digits(char[] out, int at, int value, int width) {
		for (int i = at + width - 1; i >= at; i--) {
			out[i] = (char) ('0' + value % 10);
			value /= 10;
		}
	}

}
