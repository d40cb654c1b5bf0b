package io.starintel.lease.admin.console.internal;

import java.io.IOException;
import java.util.Locale;
import java.util.Set;

import io.starintel.lease.admin.internal.AdminAuditFilter;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.AdminRequestAudit;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a state-changing console request (sign-in, sign-out, force-release, revoke) that a browser reports as sent
 * from another site: {@code Sec-Fetch-Site: cross-site} or an {@code Origin} other than the console's own
 * ({@code null} included). 403 {@code access_denied}, audited. It runs in the console's security chain before the
 * CSRF check, which refuses any write without the session's token; this filter adds the origin as a second,
 * independent check (defence in depth, OWASP's "verify origin with standard headers").
 */
public final class ConsoleOriginFilter extends OncePerRequestFilter {

	private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

	private final AdminAuditor auditor;

	public ConsoleOriginFilter(AdminAuditor auditor) {
		this.auditor = auditor;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return SAFE.contains(request.getMethod().toUpperCase(Locale.ROOT));
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (sameOrigin(request)) {
			chain.doFilter(request, response);
			return;
		}
		String correlationId = AdminRequestAudit.correlationId(request);
		this.auditor.refused(AdminRequestAudit.type(request), ResultCode.ACCESS_DENIED, correlationId);
		AdminAuditFilter.write(response, ResultCode.ACCESS_DENIED, correlationId, null);
	}

	/** Whether the browser's fetch metadata and {@code Origin} (when sent) name the console's own origin. */
	static boolean sameOrigin(HttpServletRequest request) {
		String site = request.getHeader("Sec-Fetch-Site");
		if (site != null && site.equalsIgnoreCase("cross-site")) {
			return false;
		}
		String origin = request.getHeader("Origin");
		return origin == null || origin.equalsIgnoreCase(ownOrigin(request));
	}

	static String ownOrigin(HttpServletRequest request) {
		String scheme = request.getScheme().toLowerCase(Locale.ROOT);
		int port = request.getServerPort();
		boolean defaultPort = ("http".equals(scheme) && port == 80) || ("https".equals(scheme) && port == 443);
		return scheme + "://" + request.getServerName() + (defaultPort ? "" : ":" + port);
	}

}
