package io.starintel.lease.admin.security.internal;

import java.io.IOException;

import io.starintel.lease.admin.internal.AdminAuditFilter;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.AdminRequestAudit;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.http.internal.FirewallRejections;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A request under the admin endpoint that Spring Security's firewall refused ({@link FirewallRejections}) is
 * malformed input: the contract's 400 {@code invalid_lease_request} envelope with the caller's correlation id, audited
 * (no scope is known: log and application-event sinks only), never processed.
 */
public final class AdminFirewallAnswer implements FirewallRejections.Answer {

	private final String endpointPath;

	private final AdminAuditor auditor;

	public AdminFirewallAnswer(String endpointPath, AdminAuditor auditor) {
		this.endpointPath = endpointPath;
		this.auditor = auditor;
	}

	@Override
	public boolean answer(HttpServletRequest request, HttpServletResponse response) throws IOException {
		if (!underEndpoint(request)) {
			return false;
		}
		String correlationId = AdminRequestAudit.correlationId(request);
		this.auditor.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST, correlationId);
		AdminAuditFilter.write(response, ResultCode.INVALID_LEASE_REQUEST, correlationId, "path: rejected");
		return true;
	}

	private boolean underEndpoint(HttpServletRequest request) {
		if (AdminRequestAudit.current() != null) {
			return true;
		}
		String uri = request.getRequestURI();
		if (uri == null || !uri.startsWith(this.endpointPath)) {
			return false;
		}
		// the endpoint itself, below it, or with a path parameter (";x=1": one reason the firewall refuses)
		return uri.length() == this.endpointPath.length() || uri.charAt(this.endpointPath.length()) == '/'
				|| uri.charAt(this.endpointPath.length()) == ';';
	}

}
