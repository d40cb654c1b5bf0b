package io.starintel.lease.admin.internal;

import java.util.Map;

import io.starintel.lease.admin.AdminProperties;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.FatalErrors;
import io.starintel.lease.http.internal.BoundedBody;
import io.starintel.lease.http.internal.CorrelationId;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * The target-lease admin actuator endpoint ({@code targetleases}): list and inspect are read operations, inspect by
 * identity, force-release, revoke, recover and recover-document are write operations, so
 * {@code management.endpoints.access.max-permitted} and {@code management.endpoint.targetleases.access}, exposure,
 * the management port and base path apply as to any actuator endpoint.
 *
 * <p>Paths under {@code <actuator base path>/targetleases}: {@code GET} (list), {@code GET /{lease_id}} (inspect),
 * {@code POST /inspect}, {@code POST /force-release}, {@code POST /revoke}, {@code POST /recover} (failover or
 * restore recovery on the Redis store: {@link TargetLeaseAdminOperations#recover}), {@code POST /recover-document}
 * (a CouchDB document's forged fence: {@link TargetLeaseAdminOperations#recoverDocument}); any other path is 400
 * {@code invalid_lease_request}. The operations declare no parameter but the path: they read the raw query and the
 * bounded JSON body of the request being served ({@link AdminRequestAudit}, {@link AdminRequestShield}) so that the
 * contract's strict input rules hold, and answer the contract's envelopes. An unexpected failure (an {@link Error}
 * too, but a {@link FatalErrors fatal} one) is 503 {@code lease_backend_unavailable}, never a 500 or a stack trace. Every refusal answered here is audited.
 */
@WebEndpoint(id = TargetLeaseAdminEndpoint.ID)
public final class TargetLeaseAdminEndpoint {

	/** The endpoint id (and default path under the actuator base path). */
	public static final String ID = "targetleases";

	private static final Logger logger = LoggerFactory.getLogger(TargetLeaseAdminEndpoint.class);

	private final TargetLeaseAdminOperations operations;

	private final int maxBodyBytes;

	public TargetLeaseAdminEndpoint(TargetLeaseAdminOperations operations, AdminProperties properties) {
		this.operations = operations;
		this.maxBodyBytes = properties.maxBodyBytes();
	}

	/** List: {@code GET ?tenant_id&program_id[&owner_principal_id|&target_namespace&target_id][&cursor][&page_size]}. */
	@ReadOperation
	public WebEndpointResponse<String> list() {
		return serve(AuditEventType.LIST, (request, correlationId) -> {
			Map<String, String[]> parameters = AdminHttp.parameters(request);
			return (parameters != null) ? this.operations.list(parameters, correlationId)
					: malformedQuery(AuditEventType.LIST, correlationId);
		});
	}

	/** Inspect by lease id: {@code GET /{lease_id}?tenant_id&program_id}; a deeper path is unknown. */
	@ReadOperation
	public WebEndpointResponse<String> inspect(@Selector(match = Match.ALL_REMAINING) String[] path) {
		return serve(AuditEventType.INSPECT, (request, correlationId) -> {
			if (path.length != 1) {
				return unknown(request, correlationId);
			}
			Map<String, String[]> parameters = AdminHttp.parameters(request);
			return (parameters != null) ? this.operations.inspectByLeaseId(path[0], parameters, correlationId)
					: malformedQuery(AuditEventType.INSPECT, correlationId);
		});
	}

	/** {@code POST} to the endpoint's root: no such operation. */
	@WriteOperation
	public WebEndpointResponse<String> writeRoot() {
		return serve(AuditEventType.LIST, this::unknown);
	}

	/**
	 * {@code POST /inspect}, {@code /force-release}, {@code /revoke}, {@code /recover} or {@code /recover-document}
	 * with a JSON body.
	 */
	@WriteOperation
	public WebEndpointResponse<String> write(@Selector(match = Match.ALL_REMAINING) String[] path) {
		return serve(AuditEventType.INSPECT, (request, correlationId) -> {
			String operation = (path.length == 1) ? path[0] : "";
			return switch (operation) {
				case "inspect" -> withBody(request, correlationId, this.operations::inspectByIdentity);
				case "force-release" -> withBody(request, correlationId, this.operations::forceRelease);
				case "revoke" -> withBody(request, correlationId, this.operations::revoke);
				case "recover" -> withBody(request, correlationId, this.operations::recover);
				case "recover-document" -> withBody(request, correlationId, this.operations::recoverDocument);
				default -> unknown(request, correlationId);
			};
		});
	}

	private interface Handler {

		AdminResponse handle(HttpServletRequest request, String correlationId);

	}

	private interface BodyOperation {

		AdminResponse apply(byte[] body, String correlationId);

	}

	private WebEndpointResponse<String> serve(AuditEventType type, Handler handler) {
		AdminRequestAudit slot = AdminRequestAudit.current();
		if (slot == null) {
			// the audit filter is not in front of this request (its path is not the one the filter was mapped to):
			// fail closed rather than serve an unaudited request
			String correlationId = CorrelationId.of(null);
			return answer(this.operations.refused(type, ResultCode.LEASE_BACKEND_UNAVAILABLE, correlationId, null),
					null);
		}
		String correlationId = slot.correlationId();
		try {
			return answer(handler.handle(slot.request(), correlationId), slot);
		}
		catch (RuntimeException | Error ex) {
			// an Error too (a user's store, a driver): never Boot's 500; only a VirtualMachineError is rethrown
			FatalErrors.rethrowIfFatal(ex);
			// the class only: exception messages may carry request input or backend details
			logger.warn("Admin request {} failed with {}", correlationId, ex.getClass().getName());
			ResultCode code = ResultCode.LEASE_BACKEND_UNAVAILABLE;
			AdminResponse response = slot.audited() ? AdminResponse.error(code, correlationId, 0, null)
					: this.operations.refused(AdminRequestAudit.type(slot.request()), code, correlationId, null);
			return answer(response, slot);
		}
	}

	private AdminResponse withBody(HttpServletRequest request, String correlationId, BodyOperation operation) {
		if (AdminHttp.hasQuery(request)) {
			// the write operations take no query parameter: refused before anything is parsed or changed
			return this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
					correlationId, AdminHttp.QUERY_NOT_ACCEPTED);
		}
		if (!AdminHttp.isJson(request)) {
			return this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
					correlationId, "content_type: must be application/json");
		}
		byte[] body = BoundedBody.read(request, this.maxBodyBytes);
		if (body == null) {
			return this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
					correlationId, "body: larger than " + this.maxBodyBytes + " bytes or unreadable");
		}
		return operation.apply(body, correlationId);
	}

	private AdminResponse unknown(HttpServletRequest request, String correlationId) {
		return this.operations.refused(AdminRequestAudit.type(request), ResultCode.INVALID_LEASE_REQUEST,
				correlationId, "path: unknown operation");
	}

	private AdminResponse malformedQuery(AuditEventType type, String correlationId) {
		return this.operations.refused(type, ResultCode.INVALID_LEASE_REQUEST, correlationId, "query: malformed");
	}

	private static WebEndpointResponse<String> answer(AdminResponse response, @Nullable AdminRequestAudit slot) {
		if (slot != null && response.retryAfterMs() > 0) {
			slot.response()
				.setHeader(HttpHeaders.RETRY_AFTER, Long.toString((response.retryAfterMs() + 999) / 1000));
		}
		return new WebEndpointResponse<>(response.body(), response.status(), MediaType.APPLICATION_JSON);
	}

}
