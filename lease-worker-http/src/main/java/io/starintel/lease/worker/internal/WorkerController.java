package io.starintel.lease.worker.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.ServletRequestBindingException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.PropertyProblems;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.http.Admission;
import io.starintel.lease.http.internal.AdapterPropertiesCheck;
import io.starintel.lease.http.internal.AuthorizationHeader;
import io.starintel.lease.http.internal.BoundedBody;
import io.starintel.lease.http.internal.CorrelationId;
import io.starintel.lease.http.internal.TenantAdmission;
import io.starintel.lease.http.internal.UnreadBody;
import io.starintel.lease.worker.WorkerHttpProperties;

/**
 * The HTTP adapter of the worker operations under {@value #BASE_PATH}.
 *
 * <p>One handler maps the whole subtree and dispatches itself, so that every request — unknown path, wrong method,
 * wrong content type, oversized or unreadable body — gets the contract's envelope with a {@code correlation_id}, and
 * any unexpected failure becomes 503 {@code lease_backend_unavailable}: never a 500, never a stack trace.
 * {@code GET} {@value #OPENAPI_PATH} serves the API's OpenAPI description.
 */
@RestController
public class WorkerController {

	/** Base path of the worker API. */
	public static final String BASE_PATH = "/lease/v1";

	/** Path of the OpenAPI description. */
	public static final String OPENAPI_PATH = BASE_PATH + "/openapi.json";

	/** Header carrying the caller's correlation id (echoed, or generated when absent or invalid). */
	public static final String CORRELATION_HEADER = CorrelationId.HEADER;

	private static final Logger logger = LoggerFactory.getLogger(WorkerController.class);

	/** The timer of the body reads (one daemon thread; a task per read in progress, removed when it ends). */
	private static final ScheduledThreadPoolExecutor BODY_TIMER = bodyTimer();

	private static final Pattern JSON = Pattern.compile("application/json(\\s*;.*)?", Pattern.CASE_INSENSITIVE);

	private final WorkerOperations operations;

	private final WorkerAudit audit;

	private final int maxBodyBytes;

	private final Duration bodyTimeout;

	private final byte[] openApi;

	/**
	 * The worker API over a lease service.
	 * @param service the lease service (its audited store answers every lease operation)
	 * @param credentials the worker credentials
	 * @param policy the server's lease policy (TTL, lifetime and deadline bounds)
	 * @param operationClasses the closed set of operation classes
	 * @param maximumWait server cap of an acquire's {@code wait_ms}
	 * @param properties the worker API's settings
	 * @param audit where the audit events of refusals taken before the store go (e.g. the audit pipeline's
	 * {@code submit}; a no-op when audit is disabled)
	 * @return the controller
	 */
	public static WorkerController create(LeaseService service, WorkerCredentials credentials, LeasePolicy policy,
			OperationClasses operationClasses, Duration maximumWait, WorkerHttpProperties properties,
			Consumer<AuditEvent> audit) {
		Clock clock = Clock.systemUTC();
		return create(service, credentials, policy, operationClasses, maximumWait, properties,
				new WorkerAudit(audit, clock), clock);
	}

	/** As above, writing audit events synchronously to the given sinks (no pipeline). */
	public static WorkerController create(LeaseService service, WorkerCredentials credentials, LeasePolicy policy,
			OperationClasses operationClasses, Duration maximumWait, WorkerHttpProperties properties,
			Supplier<List<AuditSink>> sinks) {
		return create(service, credentials, policy, operationClasses, maximumWait, properties,
				WorkerAudit.synchronous(sinks));
	}

	private static WorkerController create(LeaseService service, WorkerCredentials credentials, LeasePolicy policy,
			OperationClasses operationClasses, Duration maximumWait, WorkerHttpProperties properties,
			WorkerAudit audit, Clock clock) {
		checkAgainst(properties, policy);
		WorkerOperations operations = new WorkerOperations(service, credentials, admission(properties.admission()),
				audit, policy, operationClasses, maximumWait, properties, clock);
		return new WorkerController(operations, audit, properties.maxBodyBytes(), properties.defaultDeadline());
	}

	private static ScheduledThreadPoolExecutor bodyTimer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "starintel-worker-body-timer");
			thread.setDaemon(true);
			return thread;
		});
		timer.setRemoveOnCancelPolicy(true);
		return timer;
	}

	/**
	 * Checks the API's defaults against the lease policy it serves (its own bounds are checked when the properties
	 * bind): a default deadline beyond the policy's maximum deadline, or a default maximum lifetime beyond its maximum
	 * lifetime, would have every request relying on the default refused.
	 * @throws io.starintel.lease.core.LeaseConfigurationException naming each property at fault
	 */
	static void checkAgainst(WorkerHttpProperties properties, LeasePolicy policy) {
		PropertyProblems problems = new PropertyProblems("starintel.lease.worker-http.");
		AdapterPropertiesCheck.checkAgainst(problems, properties.defaultDeadline(), policy);
		problems.notAbove("default-maximum-lifetime", properties.defaultMaximumLifetime(),
				"starintel.lease.ttl.maximum-lifetime", policy.maximumLifetime(), false, "");
		problems.throwIfAny("Set each property listed within the bounds of the lease policy (starintel.lease.ttl.*, "
				+ "starintel.lease.request.*); see docs/worker-api.md, \"Properties\".");
	}

	/** The admission control of the configured limits (fails naming the properties when one is not positive). */
	static TenantAdmission admission(Admission limits) {
		return new TenantAdmission(limits, "starintel.lease.worker-http.admission");
	}

	WorkerController(WorkerOperations operations, WorkerAudit audit, int maxBodyBytes, Duration bodyTimeout) {
		this.operations = operations;
		this.audit = audit;
		this.maxBodyBytes = maxBodyBytes;
		this.bodyTimeout = bodyTimeout;
		this.openApi = openApi();
	}

	private static byte[] openApi() {
		try (InputStream in = WorkerController.class.getResourceAsStream("openapi.json")) {
			if (in == null) {
				throw new IllegalStateException("openapi.json missing from the worker module");
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new IllegalStateException("openapi.json unreadable", ex);
		}
	}

	/**
	 * Every method on the subtree; {@code OPTIONS} is listed explicitly because a mapping without methods does not
	 * match it (Spring MVC would answer it itself, without an envelope).
	 */
	@RequestMapping(path = { BASE_PATH, BASE_PATH + "/**" })
	@Nullable ResponseEntity<String> handle(HttpServletRequest request, HttpServletResponse response) {
		return dispatch(request, response);
	}

	@RequestMapping(path = { BASE_PATH, BASE_PATH + "/**" }, method = RequestMethod.OPTIONS)
	@Nullable ResponseEntity<String> options(HttpServletRequest request, HttpServletResponse response) {
		return dispatch(request, response);
	}

	/**
	 * Answers a request under {@value #BASE_PATH} whose body the servlet container could not even parse before this
	 * controller was chosen (a {@code multipart/*} body the {@code DispatcherServlet}'s multipart resolution failed
	 * on): the same checks as any request, so 401 without valid credentials, else the content type's 400, audited;
	 * {@code false} for a request outside the worker API (left to the application).
	 */
	public boolean answerUnparsedRequest(HttpServletRequest request, HttpServletResponse response) throws IOException {
		if (!underBasePath(request)) {
			return false;
		}
		ResponseEntity<String> answer = dispatch(request, null);
		if (answer != null) {
			answerEarly(request, response, answer);
		}
		return true;
	}

	/**
	 * Answers a request under the worker API that Spring Security's firewall refused (an encoded {@code %} or
	 * {@code /}, {@code ;}, {@code //}, {@code /./}, a non-printable header value: the admin module's and this module's
	 * {@code FirewallRejections}) without processing it: 401 without valid credentials, else 400
	 * {@code invalid_lease_request}, audited with the operation's type where the path names one.
	 * @return {@code false} when the request is not under the worker API
	 */
	public boolean answerRejectedRequest(HttpServletRequest request, HttpServletResponse response) throws IOException {
		if (!underBasePath(request)) {
			return false;
		}
		String correlationId = correlationId(request);
		String path = request.getRequestURI().substring(request.getContextPath().length());
		WorkerOperation operation = WorkerOperation.at(path.substring(BASE_PATH.length()));
		Instant started = Instant.now();
		WorkerCaller caller = this.operations.authenticate(AuthorizationHeader.single(request));
		answerEarly(request, response, (caller == null)
				? respond(this.operations.unauthenticated(auditType(operation), correlationId, started), correlationId)
				: malformed(operation, caller, correlationId, started, "request: rejected by the firewall"));
		return true;
	}

	private static boolean underBasePath(HttpServletRequest request) {
		String uri = request.getRequestURI();
		String contextPath = request.getContextPath();
		if (uri == null || contextPath == null || !uri.startsWith(contextPath + BASE_PATH)) {
			return false;
		}
		// the base path itself, below it, or with a path parameter (";x=1": one reason the firewall refuses)
		int end = contextPath.length() + BASE_PATH.length();
		return uri.length() == end || uri.charAt(end) == '/' || uri.charAt(end) == ';';
	}

	private static void write(ResponseEntity<String> answer, HttpServletResponse response) throws IOException {
		response.setStatus(answer.getStatusCode().value());
		answer.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		byte[] body = (answer.getBody() != null) ? answer.getBody().getBytes(StandardCharsets.UTF_8) : new byte[0];
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
		response.flushBuffer();
	}

	/**
	 * The answer to a request; {@code null} when the answer is given on the response itself (a {@code response} was
	 * given and the request supports async): {@link BodyRead} reading the body, or an answer given before the body
	 * was read ({@link #early}).
	 */
	private @Nullable ResponseEntity<String> dispatch(HttpServletRequest request,
			@Nullable HttpServletResponse response) {
		String correlationId = correlationId(request);
		String path = request.getRequestURI().substring(request.getContextPath().length());
		if (OPENAPI_PATH.equals(path) && "GET".equals(request.getMethod())) {
			return early(request, response, ResponseEntity.ok()
				.contentType(MediaType.APPLICATION_JSON)
				.header(CORRELATION_HEADER, correlationId)
				.header(HttpHeaders.CACHE_CONTROL, "no-store")
				.body(new String(this.openApi, StandardCharsets.UTF_8)));
		}
		WorkerOperation operation = path.startsWith(BASE_PATH) ? WorkerOperation.at(path.substring(BASE_PATH.length()))
				: null;
		// docs/worker-api.md: 401 before 400, so nothing about the request is judged for an unauthenticated caller
		// (the body is not even read); a repeated Authorization header names no credential
		Instant started = Instant.now();
		WorkerCaller caller = this.operations.authenticate(AuthorizationHeader.single(request));
		if (caller == null) {
			return early(request, response, respond(this.operations.unauthenticated(auditType(operation),
					correlationId, started), correlationId));
		}
		if (operation == null || !"POST".equals(request.getMethod())) {
			return early(request, response, malformed(operation, caller, correlationId, started,
					(operation == null) ? "path: unknown operation" : "method: must be POST"));
		}
		if (request.getQueryString() != null) {
			return early(request, response, malformed(operation, caller, correlationId, started,
					"query: not accepted"));
		}
		String contentType = request.getContentType();
		if (contentType == null || !JSON.matcher(contentType.trim()).matches()) {
			return early(request, response, malformed(operation, caller, correlationId, started,
					"content_type: must be application/json"));
		}
		if (request.getContentLengthLong() > this.maxBodyBytes) {
			return early(request, response, malformed(operation, caller, correlationId, started, tooLarge()));
		}
		if (response != null && request.isAsyncSupported() && !request.isAsyncStarted()) {
			// the body is read without blocking a thread, within the default deadline (the request's deadline_at is in
			// the body): a stalled body is answered with the envelope, not held until the connector's timeout
			new BodyRead(request, response, operation, caller, correlationId, started).start();
			return null;
		}
		return answer(request, operation, caller, correlationId, started, BoundedBody.read(request, this.maxBodyBytes));
	}

	/**
	 * An answer given before the request's body was read (docs/worker-api.md, "Request bodies"): with a body still
	 * unread, it asks for the connection to be closed and is written here, then the request ends through an async
	 * cycle that completes at once ({@link UnreadBody}), so no thread waits for a stalled body; without one, the answer
	 * as it is.
	 */
	private @Nullable ResponseEntity<String> early(HttpServletRequest request, @Nullable HttpServletResponse response,
			ResponseEntity<String> answer) {
		if (response == null || !UnreadBody.pending(request)) {
			return answer;
		}
		try {
			answerEarly(request, response, answer);
		}
		catch (IOException ex) {
			logger.debug("Worker request {}: the answer could not be written ({})", correlationId(request),
					ex.getClass().getName());
		}
		return null;
	}

	/** Writes an answer given before the body was read: {@code Connection: close}, then the async end. */
	private void answerEarly(HttpServletRequest request, HttpServletResponse response, ResponseEntity<String> answer)
			throws IOException {
		boolean pending = UnreadBody.pending(request);
		if (pending) {
			UnreadBody.closeConnection(request, response);
		}
		write(answer, response);
		if (pending) {
			UnreadBody.endWithoutSwallow(request, response);
		}
	}

	private String tooLarge() {
		return "body: larger than " + this.maxBodyBytes + " bytes or unreadable";
	}

	private ResponseEntity<String> answer(HttpServletRequest request, WorkerOperation operation, WorkerCaller caller,
			String correlationId, Instant started, byte @Nullable [] body) {
		if (body == null) {
			return malformed(operation, caller, correlationId, started, tooLarge());
		}
		List<String> instances = Collections.list(request.getHeaders(WorkerRequestParser.INSTANCE_HEADER));
		if (instances.stream().distinct().count() > 1) {
			// which one names the caller is not for this API to guess
			return malformed(operation, caller, correlationId, started,
					"service_instance_id: " + WorkerRequestParser.INSTANCE_HEADER + " given more than once, differently");
		}
		return respond(this.operations.handle(operation, caller, instances.isEmpty() ? null : instances.get(0), body,
				correlationId, started), correlationId);
	}

	/**
	 * One request body read with the servlet's non-blocking input ({@link ReadListener}) in an async cycle whose
	 * timeout is the default deadline: all of it arrived (at most {@code max-body-bytes}): the operation; more: 400;
	 * unreadable (the client closed it): 400; not all within the default deadline: 408 {@code deadline_exceeded}
	 * (the request's deadline passed before it could be submitted). Each answer is the envelope, audited with the code
	 * sent, written once on the async response, then the cycle completes.
	 */
	private final class BodyRead implements ReadListener, AsyncListener {

		private final HttpServletRequest request;

		private final HttpServletResponse response;

		private final WorkerOperation operation;

		private final WorkerCaller caller;

		private final String correlationId;

		private final Instant started;

		private final ByteArrayOutputStream received = new ByteArrayOutputStream();

		private final byte[] chunk = new byte[4096];

		private final AtomicBoolean answered = new AtomicBoolean();

		private @Nullable AsyncContext async;

		private @Nullable ServletInputStream in;

		private volatile @Nullable ScheduledFuture<?> timer;

		BodyRead(HttpServletRequest request, HttpServletResponse response, WorkerOperation operation,
				WorkerCaller caller, String correlationId, Instant started) {
			this.request = request;
			this.response = response;
			this.operation = operation;
			this.caller = caller;
			this.correlationId = correlationId;
			this.started = started;
		}

		void start() {
			AsyncContext context = this.request.startAsync(this.request, this.response);
			this.async = context;
			// the container's async timeout would also cut the operation (a waiting acquire runs after the read):
			// none, the body's bound is this request's own timer
			context.setTimeout(0);
			context.addListener(this);
			this.timer = BODY_TIMER.schedule(() -> onTimeout(null),
					Math.max(1, WorkerController.this.bodyTimeout.toMillis()), TimeUnit.MILLISECONDS);
			try {
				this.in = this.request.getInputStream();
				this.in.setReadListener(this);
			}
			catch (IOException | RuntimeException ex) {
				// no non-blocking input (e.g. a mock request): the blocking read, answered on the async response
				finish(() -> answer(this.request, this.operation, this.caller, this.correlationId, this.started,
						BoundedBody.read(this.request, WorkerController.this.maxBodyBytes)));
			}
		}

		@Override
		public void onDataAvailable() throws IOException {
			ServletInputStream input = this.in;
			while (input != null && !this.answered.get() && input.isReady()) {
				int n = input.read(this.chunk);
				if (n < 0) {
					return;
				}
				this.received.write(this.chunk, 0, n);
				if (this.received.size() > WorkerController.this.maxBodyBytes) {
					finish(() -> malformed(this.operation, this.caller, this.correlationId, this.started, tooLarge()));
					return;
				}
			}
		}

		@Override
		public void onAllDataRead() {
			finish(() -> answer(this.request, this.operation, this.caller, this.correlationId, this.started,
					this.received.toByteArray()));
		}

		@Override
		public void onError(Throwable failure) {
			finish(() -> malformed(this.operation, this.caller, this.correlationId, this.started, tooLarge()));
		}

		@Override
		public void onTimeout(@Nullable AsyncEvent event) {
			finish(() -> {
				WorkerController.this.audit.refused(auditType(this.operation), ResultCode.DEADLINE_EXCEEDED,
						this.correlationId, this.started, this.caller, null, null, null);
				return respond(WorkerEnvelope.error(ResultCode.DEADLINE_EXCEEDED, this.correlationId, 0, null),
						this.correlationId);
			});
		}

		@Override
		public void onError(AsyncEvent event) {
			onError(event.getThrowable());
		}

		@Override
		public void onComplete(AsyncEvent event) {
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
		}

		/** The one answer of this request; any failure is the same 503 as the controller's exception handler. */
		private void finish(Supplier<ResponseEntity<String>> answer) {
			if (!this.answered.compareAndSet(false, true)) {
				return;
			}
			ScheduledFuture<?> pending = this.timer;
			if (pending != null) {
				pending.cancel(false);
			}
			AsyncContext context = this.async;
			try {
				ResponseEntity<String> entity;
				try {
					entity = answer.get();
				}
				catch (RuntimeException ex) {
					entity = failure(ex, this.request);
				}
				HttpServletResponse target = (HttpServletResponse) context.getResponse();
				if (UnreadBody.pending(this.request)) {
					// answered before the body's end (over the bound, cut off, past the deadline): the connection is
					// closed, never kept to swallow the rest (this cycle completes without reading it)
					UnreadBody.closeConnection(this.request, target);
				}
				write(entity, target);
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Worker request {}: the answer could not be written ({})", this.correlationId,
						ex.getClass().getName());
			}
			finally {
				context.complete();
			}
		}

	}

	private static AuditEventType auditType(@Nullable WorkerOperation operation) {
		return (operation != null) ? operation.auditType() : AuditEventType.INSPECT;
	}

	/** Malformed after authentication: audited with the authenticated caller. */
	private ResponseEntity<String> malformed(@Nullable WorkerOperation operation, WorkerCaller caller,
			String correlationId, Instant started, String detail) {
		this.audit.refused(auditType(operation), ResultCode.INVALID_LEASE_REQUEST, correlationId, started, caller, null,
				null, null);
		return respond(WorkerEnvelope.error(ResultCode.INVALID_LEASE_REQUEST, correlationId, 0, detail),
				correlationId);
	}

	/** Never a stack trace or a backend error: an unexpected failure is reported as the service being unavailable. */
	@ExceptionHandler(Exception.class)
	ResponseEntity<String> failure(Exception ex, HttpServletRequest request) {
		String correlationId = correlationId(request);
		ResultCode code = isClientError(ex) ? ResultCode.INVALID_LEASE_REQUEST : ResultCode.LEASE_BACKEND_UNAVAILABLE;
		// the class only: exception messages may carry request input or backend details
		logger.warn("Worker request {} failed with {} ({})", correlationId, ex.getClass().getName(), code.wireName());
		return respond(WorkerEnvelope.error(code, correlationId, 0, null), correlationId);
	}

	private static boolean isClientError(Exception ex) {
		return ex instanceof ServletRequestBindingException
				|| ex instanceof HttpMediaTypeException
				|| ex instanceof HttpRequestMethodNotSupportedException
				|| ex instanceof HttpMessageNotReadableException;
	}

	static String correlationId(HttpServletRequest request) {
		return CorrelationId.of(request.getHeader(CORRELATION_HEADER));
	}

	static ResponseEntity<String> respond(WorkerResponse response, String correlationId) {
		ResponseEntity.BodyBuilder builder = ResponseEntity.status(response.status())
			.contentType(MediaType.APPLICATION_JSON)
			.header(CORRELATION_HEADER, correlationId)
			.header(HttpHeaders.CACHE_CONTROL, "no-store");
		// exactly when the envelope is retryable, as retry_after_ms: a client (or a proxy) reading only the headers
		// then tells a retryable refusal from a final one; 0 (408 deadline_exceeded) is "retry now, with a new deadline"
		if (response.retryable()) {
			builder.header(HttpHeaders.RETRY_AFTER, Long.toString((response.retryAfterMs() + 999) / 1000));
		}
		return builder.body(response.body());
	}

}
