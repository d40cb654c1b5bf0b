package io.starintel.lease.audit.internal;

import java.time.Duration;
import java.time.Instant;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import org.jspecify.annotations.Nullable;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.BackendHealth;
import io.starintel.lease.audit.PrincipalClass;

/**
 * Builds an {@link AuditEvent}. Only safe values can be set: the builder takes canonical identities and lease
 * records and copies their non-secret fields, never a lock key, metadata or credential material.
 */
public final class AuditEventBuilder {

	private final AuditEventType type;

	private final ResultCode code;

	private Instant backendTime = Instant.EPOCH;

	private long latencyMs;

	private @Nullable String requestId;

	private @Nullable String correlationId;

	private @Nullable String traceId;

	private @Nullable String executionId;

	private @Nullable String jobId;

	private PrincipalClass principalClass = PrincipalClass.ANONYMOUS;

	private @Nullable String principalId;

	private @Nullable String credentialId;

	private @Nullable String serviceInstanceId;

	private @Nullable String tenantId;

	private @Nullable String programId;

	private @Nullable String targetNamespace;

	private @Nullable String targetId;

	private @Nullable String actorName;

	private @Nullable String workflowName;

	private @Nullable String operationClass;

	private @Nullable String leaseId;

	private @Nullable Long fencingToken;

	private @Nullable Long requestedTtlMs;

	private @Nullable Long effectiveTtlMs;

	private @Nullable String deadlineClass;

	private @Nullable String previousState;

	private @Nullable String resultingState;

	private @Nullable String reason;

	private @Nullable String decisionId;

	/** A builder of an event of {@code type} answering {@code code} (the one way this project builds events). */
	public AuditEventBuilder(AuditEventType type, ResultCode code) {
		this.type = type;
		this.code = code;
	}

	/** Backend (or, when no backend decided, server) time of the decision and the latency since the start. */
	public AuditEventBuilder time(Instant decidedAt, Instant startedAt) {
		this.backendTime = decidedAt;
		// Duration.between(startedAt, decidedAt).toMillis(), clamped at 0, without the Duration
		this.latencyMs = Math.max(0, nanosBetween(startedAt, decidedAt) / 1_000_000L);
		return this;
	}

	/** Sets the latency explicitly (used when the backend clock differs from the server clock). */
	public AuditEventBuilder latencyMs(long latency) {
		this.latencyMs = Math.max(0, latency);
		return this;
	}

	/** Request and correlation ids. */
	public AuditEventBuilder ids(@Nullable String request, @Nullable String correlation) {
		this.requestId = request;
		this.correlationId = correlation;
		return this;
	}

	/** Correlation id only. */
	public AuditEventBuilder correlation(@Nullable String correlation) {
		this.correlationId = correlation;
		return this;
	}

	/** Trace, execution and job ids. */
	public AuditEventBuilder execution(@Nullable String trace, @Nullable String execution, @Nullable String job) {
		this.traceId = trace;
		this.executionId = execution;
		this.jobId = job;
		return this;
	}

	/** Principal class and id, non-secret credential id and service instance id. */
	public AuditEventBuilder principal(PrincipalClass principal, @Nullable String id, @Nullable String credential,
			@Nullable String instance) {
		this.principalClass = principal;
		this.principalId = id;
		this.credentialId = credential;
		this.serviceInstanceId = instance;
		return this;
	}

	/** The canonical scope of a whole identity. */
	public AuditEventBuilder identity(LockIdentity identity) {
		this.tenantId = identity.tenantId();
		this.programId = identity.programId();
		this.targetNamespace = identity.targetNamespace();
		this.targetId = identity.targetId();
		this.actorName = identity.actorName();
		this.workflowName = identity.workflowName();
		this.operationClass = identity.operationClass();
		return this;
	}

	/** Tenant and program only. */
	public AuditEventBuilder scope(@Nullable ProgramScope scope) {
		if (scope != null) {
			this.tenantId = scope.tenantId();
			this.programId = scope.programId();
		}
		return this;
	}

	/** Target only (list by target). */
	public AuditEventBuilder target(String namespace, String id) {
		this.targetNamespace = namespace;
		this.targetId = id;
		return this;
	}

	/** Lease id and fencing token: only call when disclosure is safe (the caller's own or an authorized lease). */
	public AuditEventBuilder lease(@Nullable String id, @Nullable Long token) {
		this.leaseId = id;
		this.fencingToken = token;
		return this;
	}

	/** Identity, lease id, token, effective TTL and resulting state of an authorized lease record. */
	public AuditEventBuilder record(LeaseRecord record) {
		identity(record.identity());
		lease(record.leaseId(), record.fencingToken());
		this.effectiveTtlMs = record.ttlMs();
		this.resultingState = record.state().wireName();
		return this;
	}

	/** Requested TTL. */
	public AuditEventBuilder requestedTtlMs(@Nullable Long ttl) {
		this.requestedTtlMs = ttl;
		return this;
	}

	/** The class of the deadline relative to the start: {@code past}, {@code lt_1s}, {@code lt_10s}, {@code lt_60s}, {@code ge_60s}. */
	public AuditEventBuilder deadline(@Nullable Instant deadlineAt, Instant startedAt) {
		this.deadlineClass = (deadlineAt != null) ? deadlineClass(nanosBetween(startedAt, deadlineAt)) : null;
		return this;
	}

	/** Previous and resulting state (wire names). */
	public AuditEventBuilder states(@Nullable String previous, @Nullable String resulting) {
		this.previousState = previous;
		this.resultingState = resulting;
		return this;
	}

	/** Administrator reason or incident id (force-release, revoke). */
	public AuditEventBuilder reason(@Nullable String adminReason) {
		this.reason = adminReason;
		return this;
	}

	/**
	 * The decision id of a decision whose audit entry is also written elsewhere (the Redis store's transition script
	 * writes the same decision's durable entry: {@link AdminDecision}); without it {@link #build()} generates one.
	 */
	public AuditEventBuilder decision(@Nullable String id) {
		this.decisionId = id;
		return this;
	}

	/** The event; its decision id the one given ({@link #decision}) or a new one ({@code dec_} + 26 characters). */
	public AuditEvent build() {
		String decision = (this.decisionId != null) ? this.decisionId : AdminDecision.newDecisionId();
		return new AuditEvent(this.type, this.backendTime, this.latencyMs, this.requestId, this.correlationId,
				decision, this.traceId, this.executionId, this.jobId, this.principalClass,
				this.principalId, this.credentialId, this.serviceInstanceId, this.tenantId, this.programId,
				this.targetNamespace, this.targetId, this.actorName, this.workflowName, this.operationClass,
				this.leaseId, this.fencingToken, this.requestedTtlMs, this.effectiveTtlMs, this.deadlineClass,
				this.previousState, this.resultingState, this.code, this.code.retryable(), BackendHealth.of(this.code),
				this.reason);
	}

	static String deadlineClass(Duration remaining) {
		return deadlineClass(remaining.isNegative() ? -1 : remaining.compareTo(Duration.ofDays(1)) > 0
				? Long.MAX_VALUE : remaining.toNanos());
	}

	/** The class of a remaining time in nanoseconds (negative: past). */
	private static String deadlineClass(long remainingNanos) {
		if (remainingNanos < 0) {
			return "past";
		}
		if (remainingNanos < 1_000_000_000L) {
			return "lt_1s";
		}
		if (remainingNanos < 10_000_000_000L) {
			return "lt_10s";
		}
		return (remainingNanos < 60_000_000_000L) ? "lt_60s" : "ge_60s";
	}

	/**
	 * {@code Duration.between(from, to)} in nanoseconds without the Duration, saturated at the long range (about 292
	 * years either way, far beyond any class boundary or latency).
	 */
	static long nanosBetween(Instant from, Instant to) {
		long seconds = to.getEpochSecond() - from.getEpochSecond();
		if (seconds > 9_000_000_000L) {
			return Long.MAX_VALUE;
		}
		if (seconds < -9_000_000_000L) {
			return Long.MIN_VALUE;
		}
		return seconds * 1_000_000_000L + (to.getNano() - from.getNano());
	}

}
