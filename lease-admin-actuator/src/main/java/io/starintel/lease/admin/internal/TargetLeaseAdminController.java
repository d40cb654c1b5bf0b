package io.starintel.lease.admin.internal;

import java.util.Map;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.ServletRequestBindingException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * The HTTP adapter of the admin operations, mapped under the actuator base path at {@code /targetleases}.
 *
 * <p>It is a plain MVC handler rather than an actuator {@code @Endpoint}: actuator web operations bind bodies to
 * {@code Map} parameters and answer malformed bodies, unknown fields and type errors with the framework's own error
 * bodies, so the contract's rules (every response is an envelope with a {@code correlation_id}; any malformed input is
 * 400 {@code invalid_lease_request}, never a 500, never a stack trace) could not be enforced there. This adapter reads
 * the body itself (bounded), passes raw parameters to {@link TargetLeaseAdminOperations}, answers every unknown path
 * and method of its subtree with 400, and turns any unexpected failure into 503 {@code lease_backend_unavailable}.
 * Every refusal it answers itself is audited through {@link TargetLeaseAdminOperations#refused}.
 */
@RestController
@RequestMapping("${management.endpoints.web.base-path:/actuator}/targetleases")
public class TargetLeaseAdminController {

	/** Header carrying the caller's correlation id (echoed, or generated when absent or invalid). */
	public static final String CORRELATION_HEADER = AdminRequestAudit.CORRELATION_HEADER;

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseAdminController.class);

	private final TargetLeaseAdminOperations operations;

	private final int maxBodyBytes;

	public TargetLeaseAdminController(TargetLeaseAdminOperations operations, int maxBodyBytes) {
		this.operations = operations;
		this.maxBodyBytes = maxBodyBytes;
	}

	@GetMapping
	ResponseEntity<String> list(HttpServletRequest request) {
		String correlationId = correlationId(request);
		Map<String, String[]> parameters = AdminHttp.parameters(request);
		if (parameters == null) {
			return malformedQuery(AuditEventType.LIST, correlationId);
		}
		return respond(this.operations.list(parameters, correlationId), correlationId);
	}

	@GetMapping("/{leaseId}")
	ResponseEntity<String> inspectByLeaseId(@PathVariable("leaseId") String leaseId, HttpServletRequest request) {
		String correlationId = correlationId(request);
		Map<String, String[]> parameters = AdminHttp.parameters(request);
		if (parameters == null) {
			return malformedQuery(AuditEventType.INSPECT, correlationId);
		}
		return respond(this.operations.inspectByLeaseId(leaseId, parameters, correlationId), correlationId);
	}

	private ResponseEntity<String> malformedQuery(AuditEventType type, String correlationId) {
		return respond(this.operations.refused(type, ResultCode.INVALID_LEASE_REQUEST, correlationId,
				"query: malformed"), correlationId);
	}

	@PostMapping("/inspect")
	ResponseEntity<String> inspectByIdentity(HttpServletRequest request) {
		return withBody(request, this.operations::inspectByIdentity);
	}

	@PostMapping("/force-release")
	ResponseEntity<String> forceRelease(HttpServletRequest request) {
		return withBody(request, this.operations::forceRelease);
	}

	@PostMapping("/revoke")
	ResponseEntity<String> revoke(HttpServletRequest request) {
		return withBody(request, this.operations::revoke);
	}

	/** Any other path or method under the endpoint is malformed input. */
	@RequestMapping("/**")
	ResponseEntity<String> unknown(HttpServletRequest request) {
		String correlationId = correlationId(request);
		return respond(this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
				correlationId, "path: unknown operation"), correlationId);
	}

	/** Never a stack trace or a backend error: an unexpected failure is reported as the service being unavailable. */
	@ExceptionHandler(Exception.class)
	ResponseEntity<String> failure(Exception ex, HttpServletRequest request) {
		String correlationId = correlationId(request);
		ResultCode code = isClientError(ex) ? ResultCode.INVALID_LEASE_REQUEST : ResultCode.LEASE_BACKEND_UNAVAILABLE;
		// the class only: exception messages may carry request input or backend details
		logger.warn("Admin request {} failed with {} ({})", correlationId, ex.getClass().getName(), code.wireName());
		AdminRequestAudit slot = AdminRequestAudit.current();
		AdminResponse response = (slot != null && slot.audited()) ? AdminResponse.error(code, correlationId, 0, null)
				: this.operations.refused(AdminRequestAudit.type(request), code, correlationId, null);
		return respond(response, correlationId);
	}

	private static boolean isClientError(Exception ex) {
		return ex instanceof ServletRequestBindingException
				|| ex instanceof HttpMediaTypeException
				|| ex instanceof HttpRequestMethodNotSupportedException
				|| ex instanceof HttpMessageNotReadableException
				|| ex instanceof MethodArgumentTypeMismatchException;
	}

	private interface BodyOperation {

		AdminResponse apply(byte[] body, String correlationId);

	}

	private ResponseEntity<String> withBody(HttpServletRequest request, BodyOperation operation) {
		String correlationId = correlationId(request);
		if (!AdminHttp.isJson(request)) {
			return respond(this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
					correlationId, "content_type: must be application/json"), correlationId);
		}
		byte[] body = AdminHttp.readBounded(request, this.maxBodyBytes);
		if (body == null) {
			return respond(this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
					correlationId, "body: larger than " + this.maxBodyBytes + " bytes or unreadable"), correlationId);
		}
		return respond(operation.apply(body, correlationId), correlationId);
	}

	private static String correlationId(HttpServletRequest request) {
		return AdminRequestAudit.correlationId(request);
	}

	private static ResponseEntity<String> respond(AdminResponse response, String correlationId) {
		return AdminHttp.respond(response, correlationId);
	}

}
