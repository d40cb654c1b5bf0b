package io.starintel.lease.admin.console.internal;

import java.io.IOException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Locale;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Runs after Spring Security for the console's paths and hides a {@code multipart/*} content type from the
 * dispatcher. The {@code DispatcherServlet} parses a multipart request before any handler runs; a malformed body (no
 * boundary, a broken part) then fails there with a {@code MultipartException} that no console handler sees: Boot's
 * 500 error body, a stack trace in the log and a fallback audit event without the caller. The console takes JSON only,
 * so the request goes on without its multipart content type and the controller refuses it as any other non-JSON body
 * ({@code 400 invalid_lease_request}, {@code content_type: must be application/json}), audited with the signed-in
 * caller. The body is never parsed. The admin endpoint needs no such filter: its shield hands the dispatcher no
 * content type at all.
 */
public final class ConsoleMultipartShield extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		chain.doFilter(isMultipart(request.getContentType()) ? new NotMultipart(request) : request, response);
	}

	static boolean isMultipart(@Nullable String contentType) {
		return contentType != null && contentType.trim().toLowerCase(Locale.ROOT).startsWith("multipart/");
	}

	private static final class NotMultipart extends HttpServletRequestWrapper {

		NotMultipart(HttpServletRequest request) {
			super(request);
		}

		@Override
		public @Nullable String getContentType() {
			return null;
		}

		@Override
		public @Nullable String getHeader(String name) {
			return HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name) ? null : super.getHeader(name);
		}

		@Override
		public Enumeration<String> getHeaders(String name) {
			return HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name) ? Collections.emptyEnumeration()
					: super.getHeaders(name);
		}

		@Override
		public Enumeration<String> getHeaderNames() {
			return Collections.enumeration(Collections.list(super.getHeaderNames())
				.stream()
				.filter((name) -> !HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name))
				.toList());
		}

	}

}
