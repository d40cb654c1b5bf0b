package io.starintel.lease.admin.internal;

import java.util.Map;
import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * The HTTP plumbing the admin endpoint and the console share: the JSON content-type check, the bounded body read,
 * the query parameters a container may fail to decode, and the answer (envelope, correlation id, no caching, and
 * {@code Retry-After} in seconds, rounded up, when there is a retry hint).
 */
public final class AdminHttp {

	private static final Pattern JSON = Pattern.compile("application/json(\\s*;.*)?", Pattern.CASE_INSENSITIVE);

	private AdminHttp() {
	}

	/** The detail of a write operation refused for its query string. */
	public static final String QUERY_NOT_ACCEPTED = "query: not accepted by this operation";

	/**
	 * Whether the request carries a query string, even an empty or undecodable one: the write operations take their
	 * input from the JSON body only, so any query is refused (never ignored).
	 */
	public static boolean hasQuery(HttpServletRequest request) {
		return request.getQueryString() != null;
	}

	/** Whether the request's content type is {@code application/json} (with optional parameters). */
	public static boolean isJson(HttpServletRequest request) {
		String contentType = request.getContentType();
		return contentType != null && JSON.matcher(contentType.trim()).matches();
	}

	/** The query parameters, or {@code null} when the container cannot decode them (e.g. {@code %zz}). */
	public static @Nullable Map<String, String[]> parameters(HttpServletRequest request) {
		try {
			return request.getParameterMap();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/** The HTTP answer of an envelope. */
	public static ResponseEntity<String> respond(AdminResponse response, String correlationId) {
		ResponseEntity.BodyBuilder builder = ResponseEntity.status(response.status())
			.contentType(MediaType.APPLICATION_JSON)
			.header(AdminRequestAudit.CORRELATION_HEADER, correlationId)
			.header(HttpHeaders.CACHE_CONTROL, "no-store");
		if (response.retryAfterMs() > 0) {
			builder.header(HttpHeaders.RETRY_AFTER, Long.toString((response.retryAfterMs() + 999) / 1000));
		}
		return builder.body(response.body());
	}

}
