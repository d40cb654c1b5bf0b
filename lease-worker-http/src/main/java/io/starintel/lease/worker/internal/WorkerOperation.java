package io.starintel.lease.worker.internal;

import java.util.HashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.AuditEventType;

/**
 * The worker API's operations, each with its path under {@code /lease/v1}, the fields its body may hold and the audit
 * event type of its refusals.
 */
enum WorkerOperation {

	ACQUIRE("/leases/acquire", AuditEventType.ACQUIRE, true, Set.of("request_id", "deadline_at",
			"service_instance_id", "lock_identity", "ttl_ms", "maximum_lifetime_ms", "wait_ms", "execution_id",
			"job_id", "trace_id", "metadata")),
	RENEW("/leases/renew", AuditEventType.RENEW, true, handle("request_id", "ttl_ms")),
	RELEASE("/leases/release", AuditEventType.RELEASE, true, handle("request_id")),
	INSPECT("/leases/inspect", AuditEventType.INSPECT, false, Set.of("deadline_at", "service_instance_id",
			"lock_identity", "lease_id")),
	RESOLVE("/leases/resolve", AuditEventType.RESOLVE, false, Set.of("deadline_at", "service_instance_id",
			"lock_identity", "operation", "request_id")),
	AUTHORIZE_COMMIT("/leases/authorize-commit", AuditEventType.COMMIT_REJECTED, true, handle());

	private final String path;

	private final AuditEventType auditType;

	private final boolean needsLeaseCapability;

	private final Set<String> fields;

	WorkerOperation(String path, AuditEventType auditType, boolean needsLeaseCapability, Set<String> fields) {
		this.path = path;
		this.auditType = auditType;
		this.needsLeaseCapability = needsLeaseCapability;
		this.fields = fields;
	}

	private static Set<String> handle(String... extra) {
		Set<String> fields = new HashSet<>(Set.of("deadline_at", "service_instance_id",
				"lock_identity", "lease_id", "fencing_token", "execution_id", "job_id", "trace_id"));
		fields.addAll(Set.of(extra));
		return Set.copyOf(fields);
	}

	/** Path below {@code /lease/v1}. */
	String path() {
		return this.path;
	}

	AuditEventType auditType() {
		return this.auditType;
	}

	/** Whether the operation needs {@code targets:lease} ({@code targets:read} suffices for inspect and resolve). */
	boolean needsLeaseCapability() {
		return this.needsLeaseCapability;
	}

	Set<String> fields() {
		return this.fields;
	}

	/** The operation mapped at a path, or {@code null}. */
	static @Nullable WorkerOperation at(String path) {
		for (WorkerOperation operation : values()) {
			if (operation.path.equals(path)) {
				return operation;
			}
		}
		return null;
	}

}
