package io.starintel.lease.admin.security.internal;

import java.io.IOException;

import io.starintel.lease.admin.internal.AdminAuditFilter;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.AdminRequestAudit;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Spring Security's firewall rejects some URLs (encoded {@code %}, {@code /}, {@code ;}, {@code //}, {@code /./},
 * non-printable characters) before any filter chain runs. Under the admin endpoint such a request is malformed input:
 * answer the contract's 400 {@code invalid_lease_request} envelope with the caller's correlation id, and audit it
 * (no scope is known: log and application-event sinks only); elsewhere keep Spring Security's default (plain 400).
 */
public final class EnvelopeRequestRejectedHandler implements RequestRejectedHandler {

	private final String endpointPath;

	private final AdminAuditor auditor;

	private final RequestRejectedHandler fallback = new HttpStatusRequestRejectedHandler();

	public EnvelopeRequestRejectedHandler(String endpointPath, AdminAuditor auditor) {
		this.endpointPath = endpointPath;
		this.auditor = auditor;
	}

	@Override
	public void handle(HttpServletRequest request, HttpServletResponse response,
			RequestRejectedException requestRejectedException) throws IOException, ServletException {
		if (!underEndpoint(request)) {
			this.fallback.handle(request, response, requestRejectedException);
			return;
		}
		String correlationId = AdminRequestAudit.correlationId(request);
		this.auditor.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST, correlationId);
		AdminAuditFilter.write(response, ResultCode.INVALID_LEASE_REQUEST, correlationId, "path: rejected");
	}

	private boolean underEndpoint(HttpServletRequest request) {
		if (AdminRequestAudit.current() != null) {
			return true;
		}
		String uri = request.getRequestURI();
		return uri != null && (uri.equals(this.endpointPath) || uri.startsWith(this.endpointPath + "/"));
	}

}
