package io.starintel.lease.admin.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import io.starintel.lease.admin.Envelopes;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Spring Security's firewall rejects some URLs (encoded {@code %}, {@code /}, {@code ;}, non-printable characters)
 * before any filter chain runs. Under the admin endpoint such a request is malformed input: answer the contract's 400
 * {@code invalid_lease_request} envelope; elsewhere keep Spring Security's default (plain 400).
 */
public final class EnvelopeRequestRejectedHandler implements RequestRejectedHandler {

	private final String endpointPath;

	private final RequestRejectedHandler fallback = new HttpStatusRequestRejectedHandler();

	public EnvelopeRequestRejectedHandler(String endpointPath) {
		this.endpointPath = endpointPath;
	}

	@Override
	public void handle(HttpServletRequest request, HttpServletResponse response,
			RequestRejectedException requestRejectedException) throws IOException, ServletException {
		String uri = request.getRequestURI();
		if (uri == null || !(uri.equals(this.endpointPath) || uri.startsWith(this.endpointPath + "/"))) {
			this.fallback.handle(request, response, requestRejectedException);
			return;
		}
		String correlationId = Identifiers.generate("corr");
		response.setStatus(400);
		response.setContentType("application/json");
		response.setHeader("X-Correlation-Id", correlationId);
		response.setHeader("Cache-Control", "no-store");
		response.getOutputStream()
			.write(Envelopes.error(ResultCode.INVALID_LEASE_REQUEST, correlationId, 0, "path: rejected")
				.getBytes(StandardCharsets.UTF_8));
	}

}
