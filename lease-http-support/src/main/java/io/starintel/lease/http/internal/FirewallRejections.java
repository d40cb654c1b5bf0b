package io.starintel.lease.http.internal;

import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.security.web.firewall.HttpStatusRequestRejectedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * The one {@link RequestRejectedHandler} of an application with Spring Security and either HTTP adapter. Spring
 * Security's firewall ({@code StrictHttpFirewall}) refuses some requests (an encoded {@code %} or {@code /}, {@code ;},
 * {@code //}, {@code /./}, non-printable characters) before any filter chain runs, and its {@code FilterChainProxy}
 * takes exactly one handler for them. Each adapter answers those under its own path with its own envelope and audit
 * event ({@link Answer}: the admin endpoint, the worker API); anything else keeps Spring Security's default, a plain
 * 400. Both adapters' auto-configurations declare it on a missing {@link RequestRejectedHandler}, so whichever runs
 * first serves both, and an application's own handler replaces it.
 */
public final class FirewallRejections implements RequestRejectedHandler {

	/** Bean name both adapters declare it under. */
	public static final String BEAN_NAME = "targetLeaseRequestRejectedHandler";

	private final Supplier<List<Answer>> answers;

	private final RequestRejectedHandler fallback = new HttpStatusRequestRejectedHandler();

	public FirewallRejections(Supplier<List<Answer>> answers) {
		this.answers = answers;
	}

	@Override
	public void handle(HttpServletRequest request, HttpServletResponse response,
			RequestRejectedException requestRejectedException) throws IOException, ServletException {
		for (Answer answer : this.answers.get()) {
			if (answer.answer(request, response)) {
				return;
			}
		}
		this.fallback.handle(request, response, requestRejectedException);
	}

	/**
	 * One adapter's answer to a request the firewall refused: the request is never processed, only answered (with
	 * the adapter's error envelope) and audited.
	 */
	@FunctionalInterface
	public interface Answer {

		/**
		 * Answers the request when it lies under the adapter's path.
		 * @return whether it did; {@code false} leaves the request to the next answer
		 */
		boolean answer(HttpServletRequest request, HttpServletResponse response) throws IOException;

	}

}
