package io.starintel.lease.admin.internal;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Tomcat refuses {@code TRACE} in its connector, before any filter, so such a request under the admin endpoint could
 * not be audited. The admin auto-configuration therefore lets TRACE into the application on Tomcat, and this filter
 * (for every path) answers it 405 with no body outside the endpoint, as Tomcat did, so nothing is ever echoed; under
 * the endpoint {@link AdminAuditFilter} answers and audits it.
 */
public final class TraceGuardFilter extends OncePerRequestFilter {

	private final String endpointPath;

	public TraceGuardFilter(String endpointPath) {
		this.endpointPath = endpointPath;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		if (!"TRACE".equalsIgnoreCase(request.getMethod())) {
			return true;
		}
		String path = request.getServletPath() + ((request.getPathInfo() != null) ? request.getPathInfo() : "");
		return path.equals(this.endpointPath) || path.startsWith(this.endpointPath + "/");
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		response.setHeader("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH");
		response.setStatus(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
		response.setContentLength(0);
	}

}
