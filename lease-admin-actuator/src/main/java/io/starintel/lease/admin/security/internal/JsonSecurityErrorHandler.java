package io.starintel.lease.admin.security.internal;

import java.io.IOException;
import io.starintel.lease.admin.internal.AdminAuditFilter;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.AdminRequestAudit;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * Writes the contract's error envelope for failures inside the security filter chain: 401 {@code invalid_credential}
 * (authentication failed before any lease access) and 403 {@code access_denied}; each is audited (principal class
 * {@code anonymous}, no scope). No {@code WWW-Authenticate} challenge is sent, so browsers do not prompt.
 */
public final class JsonSecurityErrorHandler implements AuthenticationEntryPoint, AccessDeniedHandler {

	private final AdminAuditor auditor;

	public JsonSecurityErrorHandler(AdminAuditor auditor) {
		this.auditor = auditor;
	}

	@Override
	public void commence(HttpServletRequest request, HttpServletResponse response,
			AuthenticationException authException) throws IOException {
		write(request, response, ResultCode.INVALID_CREDENTIAL);
	}

	@Override
	public void handle(HttpServletRequest request, HttpServletResponse response,
			AccessDeniedException accessDeniedException) throws IOException {
		write(request, response, ResultCode.ACCESS_DENIED);
	}

	private void write(HttpServletRequest request, HttpServletResponse response, ResultCode code) throws IOException {
		String correlationId = AdminRequestAudit.correlationId(request);
		this.auditor.refused(AdminRequestAudit.type(request), code, correlationId);
		AdminAuditFilter.write(response, code, correlationId, null);
	}

}
