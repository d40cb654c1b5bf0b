package io.starintel.lease.admin.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import io.starintel.lease.core.ResultCode;
import io.starintel.lease.http.internal.AuthorizationHeader;
import io.starintel.lease.http.internal.UnreadBody;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Runs first for every request under the {@link TargetLeaseAdminEndpoint endpoint}'s path (in the context that
 * serves the actuator: the application's, or the management server's): opens the request's
 * {@link AdminRequestAudit audit slot} (its correlation id), sets the headers every answer carries (the correlation
 * id, {@code Cache-Control: no-store}), answers a method the endpoint does not serve ({@code GET}, {@code HEAD} and
 * {@code POST} are served) itself with the contract's 400 {@code invalid_lease_request} envelope (no lease access,
 * nothing echoed), and after the rest of the chain writes a fallback audit event when no other component audited the
 * request: a refusal by a component that does not know the endpoint, such as Spring Boot refusing a write operation
 * that {@code management.endpoint.targetleases.access=read-only} does not permit (405). So every request that reaches
 * the application emits exactly one audit event.
 *
 * <p>It also answers a request that sends {@code Authorization} more than once 401 {@code invalid_credential} before
 * any credential is checked ({@link AuthorizationHeader}: no guessing which one authenticates), and makes every answer
 * given before the request's body was read to its end — Spring Security's 401 and 403, the endpoint's early 400s —
 * close the connection and end without a thread waiting for the rest of the body ({@link UnreadBody}).
 */
public final class AdminAuditFilter extends OncePerRequestFilter {

	private static final Set<String> SERVED_METHODS = Set.of("GET", "HEAD", "POST");

	private final AdminAuditor auditor;

	public AdminAuditFilter(AdminAuditor auditor) {
		this.auditor = auditor;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		HttpServletResponse answer = UnreadBody.closingWhenUnread(request, response);
		AdminRequestAudit slot = AdminRequestAudit.open(request, answer);
		try {
			answer.setHeader(AdminRequestAudit.CORRELATION_HEADER, slot.correlationId());
			answer.setHeader("Cache-Control", "no-store");
			if (AuthorizationHeader.repeated(request)) {
				this.auditor.refused(AdminRequestAudit.type(request), ResultCode.INVALID_CREDENTIAL,
						slot.correlationId());
				write(answer, ResultCode.INVALID_CREDENTIAL, slot.correlationId(), null);
			}
			else if (!SERVED_METHODS.contains(request.getMethod())) {
				this.auditor.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
						slot.correlationId());
				write(answer, ResultCode.INVALID_LEASE_REQUEST, slot.correlationId(), "method: not supported");
			}
			else {
				chain.doFilter(request, answer);
			}
		}
		finally {
			if (!slot.audited()) {
				this.auditor.refused(AdminRequestAudit.type(request), codeOf(response.getStatus()),
						slot.correlationId());
			}
			slot.close();
		}
		if (UnreadBody.pending(request)) {
			// answered before the body was read (e.g. 401): no thread waits for the rest of it (docs/worker-api.md)
			UnreadBody.closeConnection(request, answer);
			UnreadBody.endWithoutSwallow(request, response);
		}
	}

	private static ResultCode codeOf(int status) {
		switch (status) {
			case 401:
				return ResultCode.INVALID_CREDENTIAL;
			case 403:
				return ResultCode.ACCESS_DENIED;
			case 404:
				return ResultCode.LEASE_NOT_FOUND;
			case 405:
				// every method but GET, HEAD and POST is answered above: a 405 is Boot refusing an operation the
				// endpoint's access level does not permit
				return ResultCode.ACCESS_DENIED;
			case 429:
				return ResultCode.LEASE_RATE_LIMITED;
			default:
				return (status >= 400 && status < 500) ? ResultCode.INVALID_LEASE_REQUEST
						: ResultCode.LEASE_BACKEND_UNAVAILABLE;
		}
	}

	/** Writes the contract's error envelope (used by the filter and the security handlers). */
	public static void write(HttpServletResponse response, ResultCode code, String correlationId,
			@Nullable String detail)
			throws IOException {
		response.setStatus(code.httpStatus());
		response.setContentType("application/json");
		response.setHeader(AdminRequestAudit.CORRELATION_HEADER, correlationId);
		response.setHeader("Cache-Control", "no-store");
		response.getOutputStream()
			.write(AdminEnvelope.error(code, correlationId, 0, detail).getBytes(StandardCharsets.UTF_8));
	}

}
