package io.starintel.lease.admin.internal;

import java.io.IOException;

import io.starintel.lease.core.ResultCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The endpoint without Spring Security on the class path: nothing can authenticate a caller, so every request under
 * the {@link TargetLeaseAdminEndpoint endpoint}'s path is answered here, where Spring Security's chain would run
 * (after {@link AdminAuditFilter}), with the contract's 401 {@code invalid_credential} envelope (no challenge), audited.
 * No request reaches the endpoint, the store or Spring Boot's own answers (a read-only access level's 405, a bad
 * {@code Accept}'s 406).
 */
public final class AdminFailClosedFilter extends OncePerRequestFilter {

	private final AdminAuditor auditor;

	public AdminFailClosedFilter(AdminAuditor auditor) {
		this.auditor = auditor;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String correlationId = AdminRequestAudit.correlationId(request);
		this.auditor.refused(AdminRequestAudit.type(request), ResultCode.INVALID_CREDENTIAL, correlationId);
		AdminAuditFilter.write(response, ResultCode.INVALID_CREDENTIAL, correlationId, null);
	}

}
