package io.starintel.lease.admin.console.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.util.HtmlUtils;

/**
 * The console's pages and assets, classpath resources under {@value #RESOURCES}: the only server-side value put into
 * a page is the request's CSRF token (and a fixed notice on the sign-in page).
 */
final class ConsolePages {

	static final String RESOURCES = "io/starintel/lease/admin/console/";

	private ConsolePages() {
	}

	/** The console page. */
	static ResponseEntity<byte[]> index(HttpServletRequest request) {
		return html(template("index.html", request, ""));
	}

	/** The sign-in page, with the notice of a failed sign-in or a sign-out. */
	static ResponseEntity<byte[]> login(HttpServletRequest request) {
		String message = "";
		if (request.getParameter("error") != null) {
			message = "<p class=\"notice error\" role=\"alert\">Sign-in failed: unknown credential id or wrong secret.</p>";
		}
		else if (request.getParameter("logout") != null) {
			message = "<p class=\"notice\" role=\"status\">Signed out.</p>";
		}
		return html(template("login.html", request, message));
	}

	/** A static asset. */
	static ResponseEntity<byte[]> asset(String name, String contentType) {
		return ResponseEntity.ok()
			.contentType(MediaType.parseMediaType(contentType))
			.header(HttpHeaders.CACHE_CONTROL, "no-cache")
			.body(resource(name));
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

	private static byte[] resource(String name) {
		try (InputStream in = new ClassPathResource(RESOURCES + name).getInputStream()) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("console resource missing: " + name, ex);
		}
	}

}
