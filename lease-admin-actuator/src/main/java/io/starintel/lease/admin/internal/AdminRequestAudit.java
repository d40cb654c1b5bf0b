package io.starintel.lease.admin.internal;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.http.internal.CorrelationId;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

/**
 * The audit slot of the admin request being served on this thread: its correlation id (the caller's, when valid,
 * echoed in every response), whether its audit event was written, and the request and response as the container gave
 * them (the {@link TargetLeaseAdminEndpoint endpoint} reads the raw query and body from there, see
 * {@link AdminRequestShield}). {@link AdminAuditFilter} opens one per request under the endpoint and writes a fallback
 * event when nothing else did, so every request emits exactly one.
 */
public final class AdminRequestAudit {

	/** Header carrying the caller's correlation id (echoed, or generated when absent or invalid). */
	public static final String CORRELATION_HEADER = CorrelationId.HEADER;

	private static final ThreadLocal<AdminRequestAudit> CURRENT = new ThreadLocal<>();

	private final String correlationId;

	private final HttpServletRequest request;

	private final HttpServletResponse response;

	private boolean audited;

	private AdminRequestAudit(String correlationId, HttpServletRequest request, HttpServletResponse response) {
		this.correlationId = correlationId;
		this.request = request;
		this.response = response;
	}

	/** Opens the slot of a request on this thread. */
	static AdminRequestAudit open(HttpServletRequest request, HttpServletResponse response) {
		AdminRequestAudit slot = new AdminRequestAudit(fromHeader(request), request, response);
		CURRENT.set(slot);
		return slot;
	}

	void close() {
		CURRENT.remove();
	}

	/** The slot of the request on this thread, if any. */
	public static @Nullable AdminRequestAudit current() {
		return CURRENT.get();
	}

	/** Marks the current request as audited (no fallback event). */
	public static void markAudited() {
		AdminRequestAudit slot = CURRENT.get();
		if (slot != null) {
			slot.audited = true;
		}
	}

	/** Whether the request's event was written. */
	public boolean audited() {
		return this.audited;
	}

	/** The request as the container gave it (raw query and body). */
	HttpServletRequest request() {
		return this.request;
	}

	/** The response (headers the envelope cannot carry: {@code Retry-After}). */
	HttpServletResponse response() {
		return this.response;
	}

	/** The request's correlation id. */
	public String correlationId() {
		return this.correlationId;
	}

	/** The correlation id of a request: its slot's, else the caller's valid header, else a new one. */
	public static String correlationId(HttpServletRequest request) {
		AdminRequestAudit slot = CURRENT.get();
		return (slot != null) ? slot.correlationId : fromHeader(request);
	}

	private static String fromHeader(HttpServletRequest request) {
		return CorrelationId.of(request.getHeader(CORRELATION_HEADER));
	}

	/** The operation a request addressed, from its path (used for requests refused before parsing). */
	public static AuditEventType type(HttpServletRequest request) {
		String uri = request.getRequestURI();
		if (uri == null) {
			return AuditEventType.INSPECT;
		}
		if (uri.endsWith("/revoke") || uri.endsWith("/recover") || uri.endsWith("/recover-document")) {
			return AuditEventType.REVOKE;
		}
		if (uri.endsWith("/force-release")) {
			return AuditEventType.FORCE_RELEASE;
		}
		return (uri.endsWith("/targetleases") || uri.endsWith("/targetleases/")) ? AuditEventType.LIST
				: AuditEventType.INSPECT;
	}

}
