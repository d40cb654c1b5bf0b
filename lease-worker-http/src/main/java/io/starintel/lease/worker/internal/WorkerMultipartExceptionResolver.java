package io.starintel.lease.worker.internal;

import java.io.IOException;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.web.multipart.MultipartException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * A {@code multipart/*} request whose body does not parse fails in the {@code DispatcherServlet}'s multipart
 * resolution, before any handler is chosen, so the worker controller's own handling never sees it and Spring MVC would
 * answer a 500 with a logged stack trace. Under the worker API this resolver hands such a request to the controller
 * ({@link WorkerController#answerUnparsedRequest}): 401 without valid credentials, else 400
 * {@code invalid_lease_request} (the content type), audited. Elsewhere it resolves nothing.
 */
public final class WorkerMultipartExceptionResolver implements HandlerExceptionResolver, Ordered {

	private final WorkerController controller;

	public WorkerMultipartExceptionResolver(WorkerController controller) {
		this.controller = controller;
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		if (!(ex instanceof MultipartException)) {
			return null;
		}
		try {
			return this.controller.answerUnparsedRequest(request, response) ? new ModelAndView() : null;
		}
		catch (IOException failed) {
			return null;
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
