package io.starintel.lease.admin.internal;

import java.util.List;

import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RecoveryReport;
import io.starintel.lease.http.internal.HttpEnvelope;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ArrayNode;
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
final class AdminEnvelope {

	private AdminEnvelope() {
	}

	/** A success envelope with one lease, with its {@code holder} when {@code holder}. */
	static String success(ResultCode code, String correlationId, LeaseRecord lease, boolean holder) {
		ObjectNode body = HttpEnvelope.success(code, correlationId);
		body.set("lease", HttpEnvelope.lease(lease, holder));
		return HttpEnvelope.write(body);
	}

	/** A list envelope, each lease with its {@code holder} when {@code holder}. */
	static String page(String correlationId, List<LeaseRecord> leases, @Nullable String nextCursor,
			boolean holder) {
		ObjectNode body = HttpEnvelope.success(ResultCode.LEASE_LISTED, correlationId);
		ArrayNode array = body.putArray("leases");
		for (LeaseRecord lease : leases) {
			array.add(HttpEnvelope.lease(lease, holder));
		}
		if (nextCursor != null) {
			body.put("next_cursor", nextCursor);
		}
		else {
			body.putNull("next_cursor");
		}
		return HttpEnvelope.write(body);
	}

	/** A recovery of one program: {@code lease_revoked} with the program and the number of leases revoked. */
	static String recovered(String correlationId, ProgramScope scope, long revoked) {
		ObjectNode body = HttpEnvelope.success(ResultCode.LEASE_REVOKED, correlationId);
		ObjectNode recovery = body.putObject("recovery");
		recovery.put("tenant_id", scope.tenantId());
		recovery.put("program_id", scope.programId());
		recovery.put("revoked", revoked);
		return HttpEnvelope.write(body);
	}

	/**
	 * A recovery of the programs promoted on one node ({@code node}) or on every node: {@code lease_revoked} with the
	 * report (nodes scanned, programs found, programs recovered, leases revoked, programs left).
	 */
	static String recovered(String correlationId, @Nullable String node, RecoveryReport report) {
		ObjectNode body = HttpEnvelope.success(ResultCode.LEASE_REVOKED, correlationId);
		ObjectNode recovery = body.putObject("recovery");
		if (node != null) {
			recovery.put("node", node);
		}
		else {
			recovery.put("all_nodes", true);
		}
		recovery.put("nodes", report.nodes());
		recovery.put("programs", report.programs());
		recovery.put("recovered", report.recovered());
		recovery.put("revoked", report.revoked());
		recovery.put("left", report.left());
		return HttpEnvelope.write(body);
	}

	/**
	 * A forged-fence recovery of a CouchDB document: {@code lease_revoked} (the forged fence is revoked) with the
	 * program, the replaced token, the document's token now and the restored revision (absent for a tombstone).
	 */
	static String documentRecovered(String correlationId, ProgramScope scope, DocumentFenceRecovery.Outcome outcome) {
		ObjectNode body = HttpEnvelope.success(ResultCode.LEASE_REVOKED, correlationId);
		ObjectNode recovery = body.putObject("document_recovery");
		recovery.put("tenant_id", scope.tenantId());
		recovery.put("program_id", scope.programId());
		recovery.put("status", outcome.status());
		recovery.put("replaced_token", outcome.replacedToken());
		recovery.put("fencing_token", outcome.token());
		if (outcome.restoredRevision() != null) {
			recovery.put("restored_revision", outcome.restoredRevision());
		}
		return HttpEnvelope.write(body);
	}

	/** An error envelope; {@code detail} (only for invalid_lease_request) names a field and rule, never a value. */
	static String error(ResultCode code, String correlationId, long retryAfterMs, @Nullable String detail) {
		ObjectNode body = HttpEnvelope.error(code, correlationId, message(code, detail));
		if (retryAfterMs > 0) {
			body.put("retry_after_ms", retryAfterMs);
		}
		return HttpEnvelope.write(body);
	}

	/** Fixed, safe message of each code (the shared table, with the admin wording of lost and unknown). */
	static String message(ResultCode code, @Nullable String detail) {
		return HttpEnvelope.message(code, detail, "Target lease is not the observed active lease",
				"Outcome unknown; retry with the same request_id");
	}

}
