package io.starintel.lease.admin.console.internal;

import java.util.Map;

import io.starintel.lease.admin.AdminCaller;
import io.starintel.lease.admin.AdminGrant;
import io.starintel.lease.admin.console.ConsoleProperties;
import io.starintel.lease.admin.internal.AdminAuditor;
import io.starintel.lease.admin.internal.AdminHttp;
import io.starintel.lease.admin.internal.AdminRequestAudit;
import io.starintel.lease.admin.internal.AdminResponse;
import io.starintel.lease.admin.internal.TargetLeaseAdminOperations;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.http.internal.BoundedBody;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operator console under {@code <actuator base path>/targetleases-console}: the page ({@code /}), its sign-in
 * page ({@code /login}; the form is processed by Spring Security), its script and style sheet, who is signed in
 * ({@code /me}) and the console API under {@code /api}:
 * <ul>
 * <li>{@code GET /api/leases}, {@code GET /api/leases/{lease_id}}, {@code POST /api/force-release},
 * {@code POST /api/revoke}, {@code POST /api/recover}: exactly the admin endpoint's operations ({@link TargetLeaseAdminOperations}: same
 * parameters, bodies, envelopes, capabilities, scopes, admission control and audit), for a signed-in browser session
 * whose writes carry Spring Security's CSRF token;</li>
 * <li>{@code GET /api/leases/{lease_id}/events} and {@code GET /api/health} (read-only, {@code targets:read} in the
 * program's scope): a lease's newest audit events and the program's fencing health, from the durable audit
 * streams.</li>
 * </ul>
 * Pages are classpath resources ({@link ConsolePages}); the only server-side value put into a page is the CSRF token.
 * Nothing here shows a secret, a credential id or a lock key.
 */
@RestController
@RequestMapping("${management.endpoints.web.base-path:/actuator}/targetleases-console")
public class TargetLeaseConsoleController {

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseConsoleController.class);

	private final TargetLeaseAdminOperations operations;

	private final AdminCaller caller;

	private final AdminAuditor auditor;

	private final ConsoleAuditQuery streams;

	private final ConsoleProperties properties;

	private final int maxBodyBytes;

	private final boolean writesPermitted;

	/**
	 * The console.
	 * @param operations the admin endpoint's operations
	 * @param caller the signed-in caller
	 * @param auditor audit of the console's own reads
	 * @param reader the durable audit streams
	 * @param properties console settings
	 * @param maxBodyBytes bound of a write's body ({@code starintel.lease.admin.max-body-bytes})
	 * @param writesPermitted whether the admin endpoint's access level permits its write operations (force-release
	 * revoke and recover are refused with 403 {@code access_denied} otherwise, as the endpoint does not offer them)
	 */
	public TargetLeaseConsoleController(TargetLeaseAdminOperations operations, AdminCaller caller,
			AdminAuditor auditor, ConsoleAuditReader reader, ConsoleProperties properties, int maxBodyBytes,
			boolean writesPermitted) {
		this.operations = operations;
		this.caller = caller;
		this.auditor = auditor;
		this.streams = new ConsoleAuditQuery(caller, auditor, reader);
		this.properties = properties;
		this.maxBodyBytes = maxBodyBytes;
		this.writesPermitted = writesPermitted;
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
		return ConsolePages.index(request);
	}

	@GetMapping("/login")
	ResponseEntity<byte[]> login(HttpServletRequest request) {
		return ConsolePages.login(request);
	}

	@GetMapping("/console.js")
	ResponseEntity<byte[]> script() {
		return ConsolePages.asset("console.js", "text/javascript;charset=UTF-8");
	}

	@GetMapping("/console.css")
	ResponseEntity<byte[]> styles() {
		return ConsolePages.asset("console.css", "text/css;charset=UTF-8");
	}

	/** Who is signed in and what they may do: the page shows only the buttons of capabilities held. */
	@GetMapping("/me")
	ResponseEntity<String> me(HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		AdminGrant grant = this.caller.current();
		if (grant == null) {
			return respond(AdminResponse.error(ResultCode.INVALID_CREDENTIAL, correlationId, 0, null), correlationId);
		}
		return respond(new AdminResponse(200,
				ConsoleJson.session(grant, correlationId, this.auditor.clock().instant().toString(),
						this.writesPermitted), 0),
				correlationId);
	}

	// ---------------------------------------------------------------- the admin operations

	@GetMapping("/api/leases")
	ResponseEntity<String> list(HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		Map<String, String[]> parameters = AdminHttp.parameters(request);
		if (parameters == null) {
			return respond(this.operations.refused(AuditEventType.LIST, ResultCode.INVALID_LEASE_REQUEST,
					correlationId, "query: malformed"), correlationId);
		}
		return respond(this.operations.list(parameters, correlationId), correlationId);
	}

	@GetMapping("/api/leases/{leaseId}")
	ResponseEntity<String> inspect(@PathVariable("leaseId") String leaseId, HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		Map<String, String[]> parameters = AdminHttp.parameters(request);
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

	/** Recovery of the selected program (the admin endpoint's {@code recover}, Redis store only). */
	@PostMapping("/api/recover")
	ResponseEntity<String> recover(HttpServletRequest request) {
		return withBody(request, AuditEventType.REVOKE, this.operations::recover);
	}

	// ---------------------------------------------------------------- the durable audit streams

	/** A lease's newest audit events (acquire, renew, release, revoke with reason, rejected commits with token). */
	@GetMapping("/api/leases/{leaseId}/events")
	ResponseEntity<String> events(@PathVariable("leaseId") String leaseId, HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		return respond(this.streams.answer(request, correlationId, leaseId, (grant, read) -> ConsoleJson
			.events(leaseId, grant, read, this.properties.recentEvents(), correlationId)), correlationId);
	}

	/** Rejected commits per enforcement point and the newest lease losses of a program. */
	@GetMapping("/api/health")
	ResponseEntity<String> health(HttpServletRequest request) {
		String correlationId = AdminRequestAudit.correlationId(request);
		return respond(this.streams.answer(request, correlationId, null, (grant, read) -> ConsoleJson.health(grant,
				read, this.properties.recentLosses(), correlationId)), correlationId);
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
			return respond(AdminResponse.error(ResultCode.LEASE_BACKEND_UNAVAILABLE, correlationId, 0, null),
					correlationId);
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
		if (!this.writesPermitted) {
			// management.endpoint.targetleases.access (or max-permitted) is read-only: the console is no way around it
			return respond(this.operations.refused(type, ResultCode.ACCESS_DENIED, correlationId, null), correlationId);
		}
		if (AdminHttp.hasQuery(request)) {
			// the writes take no query parameter: refused before anything is parsed or changed
			return respond(this.operations.refused(type, ResultCode.INVALID_LEASE_REQUEST, correlationId,
					AdminHttp.QUERY_NOT_ACCEPTED), correlationId);
		}
		if (!AdminHttp.isJson(request)) {
			return respond(this.operations.refused(type, ResultCode.INVALID_LEASE_REQUEST, correlationId,
					"content_type: must be application/json"), correlationId);
		}
		byte[] body = BoundedBody.read(request, this.maxBodyBytes);
		if (body == null) {
			return respond(this.operations.refused(type, ResultCode.INVALID_LEASE_REQUEST, correlationId,
					"body: larger than " + this.maxBodyBytes + " bytes or unreadable"), correlationId);
		}
		return respond(operation.apply(body, correlationId), correlationId);
	}

	private static ResponseEntity<String> respond(AdminResponse response, String correlationId) {
		return AdminHttp.respond(response, correlationId);
	}

}
