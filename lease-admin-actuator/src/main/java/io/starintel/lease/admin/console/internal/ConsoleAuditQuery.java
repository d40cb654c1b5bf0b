package io.starintel.lease.admin.console.internal;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.AdminCapability;
import io.starintel.lease.admin.internal.AdminHttp;
import io.starintel.lease.admin.internal.AdminResponse;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The console's read-only queries of the durable audit streams (a lease's events, a program's fencing health), with
 * the checks of the admin endpoint's reads: 401 without a caller, 400 for malformed parameters, 403 without
 * {@code targets:read}, out-of-scope programs like a missing lease (404); then one bounded read of the streams (503
 * when they cannot be read). Audited like an inspect, to the log and application events only (a console polling its
 * health must not fill the durable stream it reads).
 */
final class ConsoleAuditQuery {

	private static final Set<String> READ_PARAMS = Set.of("tenant_id", "program_id");

	private final AdminCaller caller;

	private final AdminAuditor auditor;

	private final ConsoleAuditReader reader;

	ConsoleAuditQuery(AdminCaller caller, AdminAuditor auditor, ConsoleAuditReader reader) {
		this.caller = caller;
		this.auditor = auditor;
		this.reader = reader;
	}

	/** How a successful read is shown. */
	interface View {

		String render(AdminGrant grant, ConsoleAuditReader.StreamRead read);

	}

	/** Answers one query of the program named by the request's {@code tenant_id} and {@code program_id}. */
	AdminResponse answer(HttpServletRequest request, String correlationId, @Nullable String leaseId, View view) {
		Instant started = this.auditor.clock().instant();
		AdminGrant grant = this.caller.current();
		if (grant == null) {
			return refuse(ResultCode.INVALID_CREDENTIAL, null, null, leaseId, correlationId, started, null);
		}
		ProgramScope scope;
		try {
			Map<String, String[]> parameters = AdminHttp.parameters(request);
			if (parameters == null) {
				return refuse(ResultCode.INVALID_LEASE_REQUEST, grant, null, leaseId, correlationId, started,
						"query: malformed");
			}
			for (Map.Entry<String, String[]> entry : parameters.entrySet()) {
				if (!READ_PARAMS.contains(entry.getKey()) || entry.getValue().length != 1) {
					return refuse(ResultCode.INVALID_LEASE_REQUEST, grant, null, leaseId, correlationId, started,
							"query: unknown or repeated parameter");
				}
			}
			String tenant = single(parameters, "tenant_id");
			String program = single(parameters, "program_id");
			if (tenant == null || program == null) {
				return refuse(ResultCode.INVALID_LEASE_REQUEST, grant, null, leaseId, correlationId, started,
						(tenant == null) ? "tenant_id: missing" : "program_id: missing");
			}
			scope = ProgramScope.of(tenant, program);
			if (leaseId != null) {
				Identifiers.require("lease_id", leaseId);
			}
		}
		catch (RuntimeException ex) {
			return refuse(ResultCode.INVALID_LEASE_REQUEST, grant, null, leaseId, correlationId, started,
					"query: invalid scope or lease_id");
		}
		if (!grant.has(AdminCapability.READ)) {
			return refuse(ResultCode.ACCESS_DENIED, grant, scope, leaseId, correlationId, started, null);
		}
		if (!grant.allows(scope)) {
			return refuse(ResultCode.LEASE_NOT_FOUND, grant, scope, leaseId, correlationId, started, null);
		}
		ConsoleAuditReader.StreamRead read = this.reader.read(scope);
		ResultCode code = read.available() ? ResultCode.LEASE_INSPECTED : ResultCode.LEASE_BACKEND_UNAVAILABLE;
		audit(code, grant, scope, leaseId, correlationId, started);
		if (!read.available() && this.reader.configured()) {
			return AdminResponse.error(code, correlationId, 0, null);
		}
		return new AdminResponse(200, view.render(grant, read), 0);
	}

	private AdminResponse refuse(ResultCode code, @Nullable AdminGrant grant, @Nullable ProgramScope scope,
			@Nullable String leaseId, String correlationId, Instant started, @Nullable String detail) {
		audit(code, grant, scope, leaseId, correlationId, started);
		return AdminResponse.error(code, correlationId, 0, detail);
	}

	private void audit(ResultCode code, @Nullable AdminGrant grant, @Nullable ProgramScope scope,
			@Nullable String leaseId, String correlationId, Instant started) {
		var event = new AuditEventBuilder(AuditEventType.INSPECT, code)
			.time(this.auditor.clock().instant(), started)
			.ids(null, correlationId)
			.scope(scope);
		if (grant != null) {
			event.principal(principalClass(grant), grant.principalId(), grant.credentialId(), null);
		}
		if (leaseId != null && code != ResultCode.INVALID_LEASE_REQUEST) {
			event.lease(leaseId, null);
		}
		this.auditor.record(event.build(), false);
	}

	private static PrincipalClass principalClass(AdminGrant grant) {
		switch (grant.kind()) {
			case ADMINISTRATOR:
				return PrincipalClass.ADMINISTRATOR;
			case WORKER:
				return PrincipalClass.WORKER;
			default:
				return PrincipalClass.OPERATOR;
		}
	}

	private static @Nullable String single(Map<String, String[]> parameters, String name) {
		String[] values = parameters.get(name);
		return (values == null) ? null : values[0];
	}

}
