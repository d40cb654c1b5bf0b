package io.starintel.lease.admin.internal;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Runs after Spring Security for requests under the {@link TargetLeaseAdminEndpoint endpoint}'s path and hands the
 * actuator's operation binding a request without query parameters or body.
 *
 * <p>Spring Boot binds a web operation's arguments from the query and from a JSON body read as a flat
 * {@code Map<String, String>}: a nested {@code lock_identity} would fail there with Boot's own error body, and unknown,
 * repeated or undecodable parameters would be ignored or answered outside the contract. The contract wants every
 * malformed input answered 400 {@code invalid_lease_request} in its envelope, so the endpoint reads the raw query and
 * the bounded body itself, from the {@link AdminRequestAudit slot}'s original request, and declares no parameter but
 * its path selector. Security, the firewall and the audit filter see the request unchanged.
 */
public final class AdminRequestShield extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		chain.doFilter((AdminRequestAudit.current() != null) ? new Shielded(request) : request, response);
	}

	private static final class Shielded extends HttpServletRequestWrapper {

		private static final Set<String> BODY_HEADERS = Set.of("content-type", "content-length", "transfer-encoding");

		Shielded(HttpServletRequest request) {
			super(request);
		}

		@Override
		public @Nullable String getQueryString() {
			return null;
		}

		@Override
		public @Nullable String getParameter(String name) {
			return null;
		}

		@Override
		public Map<String, String[]> getParameterMap() {
			return Map.of();
		}

		@Override
		public Enumeration<String> getParameterNames() {
			return Collections.emptyEnumeration();
		}

		@Override
		public String @Nullable [] getParameterValues(String name) {
			return null;
		}

		@Override
		public @Nullable String getContentType() {
			return null;
		}

		@Override
		public int getContentLength() {
			return 0;
		}

		@Override
		public long getContentLengthLong() {
			return 0;
		}

		@Override
		public @Nullable String getHeader(String name) {
			return isBodyHeader(name) ? null : super.getHeader(name);
		}

		@Override
		public Enumeration<String> getHeaders(String name) {
			return isBodyHeader(name) ? Collections.emptyEnumeration() : super.getHeaders(name);
		}

		@Override
		public Enumeration<String> getHeaderNames() {
			return Collections.enumeration(
					Collections.list(super.getHeaderNames()).stream().filter((name) -> !isBodyHeader(name)).toList());
		}

		@Override
		public ServletInputStream getInputStream() {
			return new EmptyInputStream();
		}

		@Override
		public BufferedReader getReader() {
			return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(new byte[0]),
					StandardCharsets.UTF_8));
		}

		private static boolean isBodyHeader(String name) {
			return BODY_HEADERS.contains(name.toLowerCase(Locale.ROOT));
		}

	}

	private static final class EmptyInputStream extends ServletInputStream {

		@Override
		public boolean isFinished() {
			return true;
		}

		@Override
		public boolean isReady() {
			return true;
		}

		@Override
		public void setReadListener(ReadListener readListener) {
			throw new IllegalStateException("not asynchronous");
		}

		@Override
		public int read() {
			return -1;
		}

	}

}
