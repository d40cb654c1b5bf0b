package io.starintel.lease.admin.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;

import io.starintel.lease.admin.Envelopes;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.core.Identifiers;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

	private static final Logger logger = LoggerFactory.getLogger(JsonSecurityErrorHandler.class);

	private final List<AuditSink> sinks;

	private final Clock clock;

	public JsonSecurityErrorHandler(List<AuditSink> sinks, Clock clock) {
		this.sinks = List.copyOf(sinks);
		this.clock = clock;
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
		String correlationId = correlationId(request);
		audit(request, code, correlationId);
		response.setStatus(code.httpStatus());
		response.setContentType("application/json");
		response.setHeader("X-Correlation-Id", correlationId);
		response.setHeader("Cache-Control", "no-store");
		response.getOutputStream()
			.write(Envelopes.error(code, correlationId, 0, null).getBytes(StandardCharsets.UTF_8));
	}

	private void audit(HttpServletRequest request, ResultCode code, String correlationId) {
		AuditEventType type = type(request);
		AuditEvent event = AuditEvent.builder(type, code)
			.time(this.clock.instant(), this.clock.instant())
			.ids(null, correlationId)
			.build();
		for (AuditSink sink : this.sinks) {
			try {
				sink.record(event);
			}
			catch (RuntimeException ex) {
				logger.warn("Audit sink {} failed for {} ({})", sink.getClass().getName(), type.wireName(),
						ex.getClass().getSimpleName());
			}
		}
	}

	private static AuditEventType type(HttpServletRequest request) {
		String uri = request.getRequestURI();
		if (uri.endsWith("/revoke")) {
			return AuditEventType.REVOKE;
		}
		if (uri.endsWith("/force-release")) {
			return AuditEventType.FORCE_RELEASE;
		}
		return uri.endsWith("/targetleases") ? AuditEventType.LIST : AuditEventType.INSPECT;
	}

	private static String correlationId(HttpServletRequest request) {
		String given = request.getHeader("X-Correlation-Id");
		if (given != null && given.length() <= Identifiers.MAX_LENGTH && given.matches("[A-Za-z0-9._:@-]+")) {
			return given;
		}
		return Identifiers.generate("corr");
	}

}
