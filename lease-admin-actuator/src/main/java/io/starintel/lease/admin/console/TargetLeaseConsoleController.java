package io.starintel.lease.admin.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.starintel.lease.admin.AdminAuditor;
import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.AdminRequestAudit;
import io.starintel.lease.admin.AdminResponse;
import io.starintel.lease.admin.Capabilities;
import io.starintel.lease.admin.Envelopes;
import io.starintel.lease.admin.TargetLeaseAdminOperations;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;
import io.starintel.lease.audit.internal.AuditEventBuilder;

/**
 * The operator console under {@code <actuator base path>/targetleases-console}: the page ({@code /}), its sign-in
 * page ({@code /login}; the form is processed by Spring Security), its script and style sheet, who is signed in
 * ({@code /me}) and the console API under {@code /api}:
 * <ul>
 * <li>{@code GET /api/leases}, {@code GET /api/leases/{lease_id}}, {@code POST /api/force-release},
 * {@code POST /api/revoke}: exactly the admin endpoint's operations ({@link TargetLeaseAdminOperations}: same
 * parameters, bodies, envelopes, capabilities, scopes, admission control and audit), for a signed-in browser session
 * whose writes carry Spring Security's CSRF token;</li>
 * <li>{@code GET /api/leases/{lease_id}/events} and {@code GET /api/health} (read-only, {@code targets:read} in the
 * program's scope): a lease's newest audit events and the program's fencing health, from the durable audit
 * streams.</li>
 * </ul>
 * Pages are classpath resources ({@code io/starintel/lease/admin/console/}); the only server-side value put into a
 * page is the CSRF token. Nothing here shows a secret, a credential id or a lock key.
 */
@RestController
@RequestMapping("${management.endpoints.web.base-path:/actuator}/targetleases-console")
public class TargetLeaseConsoleController {

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseConsoleController.class);

	private static final String RESOURCES = "io/starintel/lease/admin/console/";

	private static final Pattern JSON = Pattern.compile("application/json(\\s*;.*)?", Pattern.CASE_INSENSITIVE);

	private static final Set<String> READ_PARAMS = Set.of("tenant_id", "program_id");

	private final TargetLeaseAdminOperations operations;

	private final AdminCaller caller;

	private final AdminAuditor auditor;

	private final ConsoleAuditReader reader;

	private final ConsoleProperties properties;

	private final int maxBodyBytes;

	/**
	 * The console.
	 * @param operations the admin endpoint's operations
	 * @param caller the signed-in caller
	 * @param auditor audit of the console's own reads
	 * @param reader the durable audit streams
	 * @param properties console settings
	 * @param maxBodyBytes bound of a write's body ({@code starintel.lease.admin.max-body-bytes})
	 */
	public TargetLeaseConsoleController(TargetLeaseAdminOperations operations, AdminCaller caller,
			AdminAuditor auditor, ConsoleAuditReader reader, ConsoleProperties properties, int maxBodyBytes) {
		this.operations = operations;
		this.caller = caller;
		this.auditor = auditor;
		this.reader = reader;
		this.properties = properties;
		this.maxBodyBytes = maxBodyBytes;
	}

	// ---------------------------------------------------------------- pages

	@GetMapping
	ResponseEntity<byte[]> root(HttpServletRequest request) {
		// the page's relative links (api/..., console.js) resolve under the trailing slash
		return ResponseEntity.status(HttpStatus.FOUND)
			.header(HttpHeaders.LOCATION, request.getRequestURI() + "/")
			.header(HttpHeaders.CACHE_CONTROL, "no-store")
			.build();
	}

	@GetMapping("/")
	ResponseEntity<byte[]> page(HttpServletRequest request) {
		return html(template("index.html", request, ""));
	}

	@GetMapping("/login")
	ResponseEntity<byte[]> login(HttpServletRequest request) {
		String message = "";
		if (request.getParameter("error") != null) {
			message = "<p class=\"notice error\" role=\"alert\">Sign-in failed: unknown credential id or wrong secret.</p>";
		}
		else if (request.getParameter("logout") != null) {
			message = "<p class=\"notice\" role=\"status\">Signed out.</p>";
		}
		return html(template("login.html", request, message));
	}

	@GetMapping("/console.js")
	ResponseEntity<byte[]> script() {
		return asset("console.js", "text/javascript;charset=UTF-8");
	}

	@GetMapping("/console.css")
	ResponseEntity<byte[]> styles() {
		return asset("console.css", "text/css;charset=UTF-8");
	}

	/** Who is signed in and what they may do: the page shows only the buttons of capabilities held. */
	@GetMapping("/me")
	ResponseEntity<String> me(HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		AdminGrant grant = this.caller.current();
		if (grant == null) {
			return respond(new AdminResponse(401, Envelopes.error(ResultCode.INVALID_CREDENTIAL, correlationId, 0,
					null), 0), correlationId);
		}
		return respond(new AdminResponse(200,
				ConsoleViews.session(grant, correlationId, this.auditor.clock().instant().toString()), 0),
				correlationId);
	}

	// ---------------------------------------------------------------- the admin operations

	@GetMapping("/api/leases")
	ResponseEntity<String> list(HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		Map<String, String[]> parameters = parameters(request);
		if (parameters == null) {
			return respond(this.operations.refused(AuditEventType.LIST, ResultCode.INVALID_LEASE_REQUEST,
					correlationId, "query: malformed"), correlationId);
		}
		return respond(this.operations.list(parameters, correlationId), correlationId);
	}

	@GetMapping("/api/leases/{leaseId}")
	ResponseEntity<String> inspect(@PathVariable("leaseId") String leaseId, HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		Map<String, String[]> parameters = parameters(request);
		if (parameters == null) {
			return respond(this.operations.refused(AuditEventType.INSPECT, ResultCode.INVALID_LEASE_REQUEST,
					correlationId, "query: malformed"), correlationId);
		}
		return respond(this.operations.inspectByLeaseId(leaseId, parameters, correlationId), correlationId);
	}

	@PostMapping("/api/force-release")
	ResponseEntity<String> forceRelease(HttpServletRequest request) {
		return withBody(request, AuditEventType.FORCE_RELEASE, this.operations::forceRelease);
	}

	@PostMapping("/api/revoke")
	ResponseEntity<String> revoke(HttpServletRequest request) {
		return withBody(request, AuditEventType.REVOKE, this.operations::revoke);
	}

	// ---------------------------------------------------------------- the durable audit streams

	/** A lease's newest audit events (acquire, renew, release, revoke with reason, rejected commits with token). */
	@GetMapping("/api/leases/{leaseId}/events")
	ResponseEntity<String> events(@PathVariable("leaseId") String leaseId, HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		return read(request, correlationId, leaseId, (grant, read) -> ConsoleViews.events(leaseId, grant, read,
				this.properties.getRecentEvents(), correlationId));
	}

	/** Rejected commits per enforcement point and the newest lease losses of a program. */
	@GetMapping("/api/health")
	ResponseEntity<String> health(HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		return read(request, correlationId, null, (grant, read) -> ConsoleViews.health(grant, read,
				this.properties.getRecentLosses(), correlationId));
	}

	private interface View {

		String render(AdminGrant grant, ConsoleAuditReader.StreamRead read);

	}

	/**
	 * The checks of the admin endpoint's reads: 401 without a caller, 400 for malformed parameters, 403 without
	 * {@code targets:read}, out-of-scope programs like a missing lease (404); then one bounded read of the streams
	 * (503 when they cannot be read). Audited like an inspect, to the log and application events only (a console
	 * polling its health must not fill the durable stream it reads).
	 */
	private ResponseEntity<String> read(HttpServletRequest request, String correlationId, @Nullable String leaseId,
			View view) {
		Instant started = this.auditor.clock().instant();
		AdminGrant grant = this.caller.current();
		if (grant == null) {
			return refuse(ResultCode.INVALID_CREDENTIAL, null, null, leaseId, correlationId, started, null);
		}
		ProgramScope scope;
		try {
			Map<String, String[]> parameters = parameters(request);
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
		if (!grant.has(Capabilities.READ)) {
			return refuse(ResultCode.ACCESS_DENIED, grant, scope, leaseId, correlationId, started, null);
		}
		if (!grant.allows(scope)) {
			return refuse(ResultCode.LEASE_NOT_FOUND, grant, scope, leaseId, correlationId, started, null);
		}
		ConsoleAuditReader.StreamRead read = this.reader.read(scope);
		ResultCode code = read.available() ? ResultCode.LEASE_INSPECTED : ResultCode.LEASE_BACKEND_UNAVAILABLE;
		audit(code, grant, scope, leaseId, correlationId, started);
		if (!read.available() && this.reader.configured()) {
			return respond(new AdminResponse(503, Envelopes.error(code, correlationId, 0, null), 0), correlationId);
		}
		return respond(new AdminResponse(200, view.render(grant, read), 0), correlationId);
	}

	private ResponseEntity<String> refuse(ResultCode code, @Nullable AdminGrant grant, @Nullable ProgramScope scope,
			@Nullable String leaseId, String correlationId, Instant started, @Nullable String detail) {
		audit(code, grant, scope, leaseId, correlationId, started);
		return respond(new AdminResponse(code.httpStatus(), Envelopes.error(code, correlationId, 0, detail), 0),
				correlationId);
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

	// ---------------------------------------------------------------- plumbing

	/** Any other path or method of the console API is malformed input, as on the admin endpoint. */
	@RequestMapping("/api/**")
	ResponseEntity<String> unknown(HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		return respond(this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
				correlationId, "path: unknown operation"), correlationId);
	}

	/** Never a stack trace or a backend error. */
	@ExceptionHandler(Exception.class)
	ResponseEntity<String> failure(Exception ex, HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		logger.warn("Console request {} failed with {}", correlationId, ex.getClass().getName());
		AdminRequestAudit slot = AdminRequestAudit.current();
		if (slot != null && slot.audited()) {
			return respond(new AdminResponse(503,
					Envelopes.error(ResultCode.LEASE_BACKEND_UNAVAILABLE, correlationId, 0, null), 0), correlationId);
		}
		return respond(this.operations.refused(AdminRequestAudit.type(request), ResultCode.LEASE_BACKEND_UNAVAILABLE,
				correlationId, null), correlationId);
	}

	private interface BodyOperation {

		AdminResponse apply(byte[] body, String correlationId);

	}

	private ResponseEntity<String> withBody(HttpServletRequest request, AuditEventType type,
			BodyOperation operation) {
		String correlationId = AdminRequestAudit.correlationId(request);
		String contentType = request.getContentType();
		if (contentType == null || !JSON.matcher(contentType.trim()).matches()) {
			return respond(this.operations.refused(type, ResultCode.INVALID_LEASE_REQUEST, correlationId,
					"content_type: must be application/json"), correlationId);
		}
		byte[] body = readBounded(request);
		if (body == null) {
			return respond(this.operations.refused(type, ResultCode.INVALID_LEASE_REQUEST, correlationId,
					"body: larger than " + this.maxBodyBytes + " bytes or unreadable"), correlationId);
		}
		return respond(operation.apply(body, correlationId), correlationId);
	}

	private byte @Nullable [] readBounded(HttpServletRequest request) {
		if (request.getContentLengthLong() > this.maxBodyBytes) {
			return null;
		}
		try (InputStream in = request.getInputStream()) {
			byte[] bytes = in.readNBytes(this.maxBodyBytes + 1);
			return (bytes.length > this.maxBodyBytes) ? null : bytes;
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static @Nullable Map<String, String[]> parameters(HttpServletRequest request) {
		try {
			return request.getParameterMap();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static @Nullable String single(Map<String, String[]> parameters, String name) {
		String[] values = parameters.get(name);
		return (values == null) ? null : values[0];
	}

	private static ResponseEntity<String> respond(AdminResponse response, String correlationId) {
		ResponseEntity.BodyBuilder builder = ResponseEntity.status(response.status())
			.contentType(MediaType.APPLICATION_JSON)
			.header(AdminRequestAudit.CORRELATION_HEADER, correlationId)
			.header(HttpHeaders.CACHE_CONTROL, "no-store");
		if (response.retryAfterMs() > 0) {
			builder.header(HttpHeaders.RETRY_AFTER, Long.toString((response.retryAfterMs() + 999) / 1000));
		}
		return builder.body(response.body());
	}

	/** A page with the request's CSRF token (the only server-side value) and an optional fixed notice. */
	private static String template(String name, HttpServletRequest request, String notice) {
		CsrfToken token = (CsrfToken) request.getAttribute(CsrfToken.class.getName());
		String text = new String(resource(name), StandardCharsets.UTF_8);
		return text.replace("{{csrf_parameter}}", HtmlUtils.htmlEscape((token != null) ? token.getParameterName() : "_csrf"))
			.replace("{{csrf_header}}", HtmlUtils.htmlEscape((token != null) ? token.getHeaderName() : "X-CSRF-TOKEN"))
			.replace("{{csrf_token}}", HtmlUtils.htmlEscape((token != null) ? token.getToken() : ""))
			.replace("{{notice}}", notice);
	}

	private static ResponseEntity<byte[]> html(String page) {
		return ResponseEntity.ok()
			.contentType(MediaType.parseMediaType("text/html;charset=UTF-8"))
			.header(HttpHeaders.CACHE_CONTROL, "no-store")
			.body(page.getBytes(StandardCharsets.UTF_8));
	}

	private static ResponseEntity<byte[]> asset(String name, String contentType) {
		return ResponseEntity.ok()
			.contentType(MediaType.parseMediaType(contentType))
			.header(HttpHeaders.CACHE_CONTROL, "no-cache")
			.body(resource(name));
	}

	private static byte[] resource(String name) {
		try (InputStream in = new ClassPathResource(RESOURCES + name).getInputStream()) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("console resource missing: " + name, ex);
		}
	}

}
