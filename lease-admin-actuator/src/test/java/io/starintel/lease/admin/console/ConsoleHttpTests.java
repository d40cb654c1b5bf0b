package io.starintel.lease.admin.console;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.BackendHealth;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.LeaseStore;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console API over real HTTP without a browser (JDK {@code HttpClient}): an administrator signs in with the form
 * (session cookie and CSRF token as the page has them) and sends the writes a browser page would not: malformed
 * multipart bodies and query strings. Each is the console's 400 {@code invalid_lease_request} envelope, audited once
 * with the signed-in caller, with no stack trace in the log and the lease untouched. Against
 * {@link ConsoleTestApplication} (the auto-configured chain on real Redis).
 */
@SpringBootTest(classes = ConsoleTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.tenant=" + ConsoleHttpTests.TENANT,
				"starintel.lease.owner.service-principal=prn_console_http" })
@Import(ConsoleHttpTests.Events.class)
@ExtendWith(OutputCaptureExtension.class)
class ConsoleHttpTests {

	static final String TENANT = "tenant-console-http";

	static final String PROGRAM = "p-console-http-" + UUID.randomUUID().toString().substring(0, 8);

	static final String ADMIN_SECRET = "pw-admin-" + UUID.randomUUID();

	private static final Pattern HIDDEN_TOKEN = Pattern.compile("name=\"([^\"]+)\" value=\"([^\"]+)\"");

	private static final Pattern META_TOKEN = Pattern.compile("<meta name=\"csrf-token\" content=\"([^\"]+)\"");

	private static final Pattern META_HEADER = Pattern.compile("<meta name=\"csrf-header\" content=\"([^\"]+)\"");

	private static final Pattern SESSION = Pattern.compile("JSESSIONID=([^;]+)");

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		String p = "starintel.lease.admin.credentials[0].";
		registry.add("starintel.lease.program", () -> PROGRAM);
		registry.add(p + "principal", () -> "prn_admin_http");
		registry.add(p + "credential-id", () -> "key_admin_http");
		registry.add(p + "secret-hash", () -> "{bcrypt}" + new BCryptPasswordEncoder(4).encode(ADMIN_SECRET));
		registry.add(p + "kind", () -> "administrator");
		registry.add(p + "capabilities", () -> "targets:read,targets:force-release,targets:revoke");
		registry.add(p + "tenant", () -> TENANT);
		registry.add(p + "programs", () -> PROGRAM);
	}

	/** The audit events of each correlation id (application-event sink). */
	@TestConfiguration(proxyBeanMethods = false)
	static class Events {

		final Map<String, List<AuditEvent>> byCorrelation = new ConcurrentHashMap<>();

		@EventListener
		void on(AuditEvent event) {
			if (event.correlationId() != null && event.eventType() != AuditEventType.EXPIRE) {
				this.byCorrelation.computeIfAbsent(event.correlationId(), (k) -> new CopyOnWriteArrayList<>())
					.add(event);
			}
		}

	}

	@AfterAll
	static void deleteStreams(@Autowired StringRedisTemplate redis) {
		ProgramScope scope = new ProgramScope(TENANT, PROGRAM);
		redis.delete(List.of(RedisStreamAuditSink.streamKey(scope), RedisStreamAuditSink.routineStreamKey(scope)));
	}

	@LocalServerPort
	int port;

	@Autowired
	LeaseStore store;

	@Autowired
	Events events;

	final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	String session;

	String csrfHeader;

	String csrfToken;

	/** Signs in with the form as a browser does: the sign-in page's token, then the page's token. */
	@BeforeEach
	void signIn() throws Exception {
		HttpResponse<String> login = this.http.send(HttpRequest.newBuilder(URI.create(console("/login"))).build(),
				HttpResponse.BodyHandlers.ofString());
		String anonymousSession = session(login, null);
		Matcher hidden = HIDDEN_TOKEN.matcher(login.body());
		assertThat(hidden.find()).as(login.body()).isTrue();
		String form = hidden.group(1) + "=" + URLEncoder.encode(hidden.group(2), StandardCharsets.UTF_8)
				+ "&username=key_admin_http&password=" + URLEncoder.encode(ADMIN_SECRET, StandardCharsets.UTF_8);
		HttpResponse<String> signedIn = this.http.send(HttpRequest.newBuilder(URI.create(console("/login")))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header("Cookie", "JSESSIONID=" + anonymousSession)
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(signedIn.statusCode()).isEqualTo(302);
		assertThat(signedIn.headers().firstValue("Location").orElseThrow()).endsWith("/targetleases-console/");
		this.session = session(signedIn, anonymousSession);
		HttpResponse<String> page = this.http.send(HttpRequest.newBuilder(URI.create(console("/")))
			.header("Cookie", "JSESSIONID=" + this.session)
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(page.statusCode()).isEqualTo(200);
		Matcher token = META_TOKEN.matcher(page.body());
		Matcher header = META_HEADER.matcher(page.body());
		assertThat(token.find() && header.find()).isTrue();
		this.csrfToken = token.group(1);
		this.csrfHeader = header.group(1);
	}

	/**
	 * D2: a malformed multipart body (a part without headers, or no boundary at all) on the console's writes is the
	 * console's 400 content-type refusal, audited once with the signed-in administrator and a 400 result; the
	 * dispatcher never parses it (no {@code MultipartException}, no stack trace, no 500), the lease is untouched.
	 */
	@Test
	void aMalformedMultipartWriteIs400AuditedWithTheCallerAndNoStackTrace(CapturedOutput output) throws Exception {
		LeaseRecord lease = acquire("t-multipart");
		for (String path : List.of("/api/revoke", "/api/force-release", "/api/recover")) {
			for (String contentType : List.of("multipart/form-data; boundary=x", "multipart/form-data",
					"Multipart/Mixed; boundary=x")) {
				String correlationId = "corr-mp-" + UUID.randomUUID().toString().substring(0, 8);
				HttpResponse<String> reply = write(path, contentType, "--x\r\n\r\n--x--", correlationId);
				assertThat(reply.statusCode()).as(path + " " + contentType + " " + reply.body()).isEqualTo(400);
				assertThat(reply.body()).contains("\"status\":\"error\"", "\"code\":\"invalid_lease_request\"",
						"content_type: must be application/json", "\"correlation_id\":\"" + correlationId + "\"");
				assertRefusalAudited(correlationId, path);
			}
		}
		assertThat(output.getAll()).doesNotContain("MultipartException")
			.doesNotContain("MalformedStreamException")
			.doesNotContain("FileUploadException")
			.doesNotContain("Servlet.service()");
		assertStillActive(lease);
	}

	/**
	 * D4: the console's writes take no query string; any query (unknown, empty, undecodable, or a body field moved
	 * to the query) is 400 before the body is read or anything changed, audited with the caller. A valid revoke with
	 * a query does not revoke.
	 */
	@Test
	void aQueryStringOnAWriteIs400BeforeAnyMutation() throws Exception {
		LeaseRecord lease = acquire("t-query");
		String revoke = revokeBody(lease);
		for (String path : List.of("/api/revoke?x=1", "/api/revoke?", "/api/revoke?%zz",
				"/api/revoke?deadline_at=2000-01-01T00:00:00Z", "/api/force-release?x=1", "/api/recover?x=1")) {
			String correlationId = "corr-q-" + UUID.randomUUID().toString().substring(0, 8);
			String raw = rawWrite(path, revoke, correlationId);
			assertThat(raw).as(path).startsWith("HTTP/1.1 400 ");
			assertThat(raw).as(path).contains("\"code\":\"invalid_lease_request\"", "query: not accepted",
					"\"correlation_id\":\"" + correlationId + "\"");
			assertRefusalAudited(correlationId, path);
		}
		assertStillActive(lease);
		// the same body without a query revokes: the refusals above were the query's
		HttpResponse<String> revoked = write("/api/revoke", "application/json", revoke, "corr-q-ok-" + shortId());
		assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
		assertThat(revoked.body()).contains("\"code\":\"lease_revoked\"");
	}

	private void assertRefusalAudited(String correlationId, String path) {
		Awaitility.await(path)
			.atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(this.events.byCorrelation.get(correlationId)).as(path)
				.singleElement()
				.satisfies((event) -> {
					assertThat(event.resultCode()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST);
					assertThat(event.principalClass()).isEqualTo(PrincipalClass.ADMINISTRATOR);
					assertThat(event.principalId()).isEqualTo("prn_admin_http");
					assertThat(event.backendHealth()).isNotEqualTo(BackendHealth.UNAVAILABLE);
					assertThat(event.eventType()).isEqualTo(path.startsWith("/api/force-release")
							? AuditEventType.FORCE_RELEASE : AuditEventType.REVOKE);
				}));
	}

	private void assertStillActive(LeaseRecord lease) {
		LeaseResult inspected = this.store.inspect(InspectRequest.byLeaseId(new ProgramScope(TENANT, PROGRAM),
				lease.leaseId(), "corr-check", Instant.now().plusSeconds(5)));
		assertThat(inspected.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(inspected.lease().state().wireName()).isEqualTo("active");
	}

	private LeaseRecord acquire(String target) {
		LockIdentity identity = LockIdentity.of(TENANT, PROGRAM, "starintel-target", target + "-" + shortId(),
				"usernamegen", "default", null);
		LeaseResult result = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("req"),
				Instant.now().plusSeconds(10), new LeaseOwner("worker-w", "client-1", "cred-worker", "instance-1"),
				30_000, 300_000, Identifiers.generate("exec"), "job-1", "trace-1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	private static String revokeBody(LeaseRecord lease) {
		LockIdentity identity = lease.identity();
		return "{\"request_id\":\"" + Identifiers.generate("req") + "\",\"lock_identity\":{\"tenant_id\":\""
				+ identity.tenantId() + "\",\"program_id\":\"" + identity.programId()
				+ "\",\"target_namespace\":\"starintel-target\",\"target_id\":\"" + identity.targetId()
				+ "\",\"actor_name\":\"usernamegen\",\"workflow_name\":\"default\"},\"lease_id\":\"" + lease.leaseId()
				+ "\",\"fencing_token\":" + lease.fencingToken() + ",\"reason\":\"query test\"}";
	}

	private HttpResponse<String> write(String path, String contentType, String body, String correlationId)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create(console(path)))
			.header("Content-Type", contentType)
			.header("Cookie", "JSESSIONID=" + this.session)
			.header(this.csrfHeader, this.csrfToken)
			.header("X-Correlation-Id", correlationId)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** A JSON write over a raw socket: the request target is sent as given (an undecodable query included). */
	private String rawWrite(String path, String body, String correlationId) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		String head = "POST /actuator/targetleases-console" + path + " HTTP/1.1\r\nHost: localhost:" + this.port
				+ "\r\nConnection: close\r\nContent-Type: application/json\r\nCookie: JSESSIONID=" + this.session
				+ "\r\n" + this.csrfHeader + ": " + this.csrfToken + "\r\nX-Correlation-Id: " + correlationId
				+ "\r\nContent-Length: " + bytes.length + "\r\n\r\n";
		try (java.net.Socket socket = new java.net.Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(10_000);
			socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
			socket.getOutputStream().write(bytes);
			socket.getOutputStream().flush();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private static String session(HttpResponse<?> response, String current) {
		for (String cookie : response.headers().allValues("Set-Cookie")) {
			Matcher matcher = SESSION.matcher(cookie);
			if (matcher.find()) {
				return matcher.group(1);
			}
		}
		assertThat(current).as("a session cookie").isNotNull();
		return current;
	}

	private String console(String path) {
		return "http://localhost:" + this.port + "/actuator/targetleases-console" + path;
	}

	private static String shortId() {
		return UUID.randomUUID().toString().substring(0, 8);
	}

}
