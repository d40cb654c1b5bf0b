package io.starintel.lease.worker.it;

import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A generated sweep of malformed requests (bodies, headers, encodings, identities, durations, deadlines including
 * extreme dates, methods and paths) against the running API on real Redis: no 5xx, no stack trace, no raw lock key or
 * digest, no backend name, no secret; every answer but the container's own 400 is the contract's envelope; cases known
 * to be malformed are exactly 400 {@code invalid_lease_request} (or 401 for credentials).
 */
@SpringBootTest(classes = WorkerTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.worker-http.admission.burst=100000",
				"starintel.lease.worker-http.admission.permits-per-second=100000" })
class WorkerMalformedSweepTests {

	static String program;

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		program = WorkerTestApplication.register(registry);
	}

	static final String A = WorkerHttp.basic("key_worker_a", WorkerTestApplication.SECRET_A);

	static final String B = WorkerHttp.basic("key_worker_b", WorkerTestApplication.SECRET_B);

	static final JsonNodeFactory F = JsonNodeFactory.instance;

	@LocalServerPort
	int port;

	@Autowired
	LeaseService service;

	/** One generated request; {@code expect} is the exact status when the case is known to be malformed, else 0. */
	record Case(String name, String method, String path, byte[] body, String contentType, Map<String, String> headers,
			int expect) {
	}

	@Test
	void aThousandMalformedRequestsNeverYieldAServerErrorOrALeak() throws Exception {
		WorkerHttp http = new WorkerHttp(this.port);
		String target = "sweep-" + UUID.randomUUID();
		// the sweep's target is held by worker B; the sweep speaks as worker A
		ObjectNode hold = WorkerApiTests.acquireBody(target, "req-" + UUID.randomUUID(), "inst-b");
		hold.put("ttl_ms", 600_000);
		WorkerHttp.Reply held = http.post("/lease/v1/leases/acquire", hold.toString(), B);
		assertThat(held.status()).isEqualTo(200);
		JsonNode lease = held.json().path("lease");
		LockIdentity identity = LockIdentity.of(WorkerTestApplication.TENANT, program, "starintel-target", target,
				"usernamegen", "default", "default");
		List<Case> cases = cases(target, lease);
		assertThat(cases).hasSizeGreaterThanOrEqualTo(1000);
		List<String> failures = new ArrayList<>();
		Map<Integer, Integer> statuses = new TreeMap<>();
		for (Case c : cases) {
			WorkerHttp.Reply reply = send(http, c);
			statuses.merge(reply.status(), 1, Integer::sum);
			String problem = problem(c, reply, identity);
			if (problem != null) {
				failures.add(c.name() + " -> " + reply.status() + " " + problem + " "
						+ reply.body().substring(0, Math.min(200, reply.body().length())));
			}
		}
		int raw = 0;
		for (String request : rawRequests()) {
			String reply = rawSend(request);
			raw++;
			int status = Integer.parseInt(reply.substring(9, 12));
			statuses.merge(status, 1, Integer::sum);
			if (status >= 500 || leak(reply, identity) != null) {
				failures.add("raw " + request.lines().findFirst().orElse("") + " -> " + status + " "
						+ leak(reply, identity));
			}
		}
		System.out.println("worker sweep: " + (cases.size() + raw) + " requests, statuses " + statuses);
		assertThat(failures).as("failures of %d generated cases", cases.size() + raw).isEmpty();
		// the held lease survived every malformed request
		assertThat(inspect(identity).code()).isEqualTo(ResultCode.LEASE_INSPECTED);
	}

	private static WorkerHttp.Reply send(WorkerHttp http, Case c) {
		HttpRequest.Builder builder = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + http.port() + c.path()))
			.timeout(Duration.ofSeconds(30))
			.method(c.method(), (c.body() != null) ? HttpRequest.BodyPublishers.ofByteArray(c.body())
					: HttpRequest.BodyPublishers.noBody());
		if (c.contentType() != null) {
			builder.header("Content-Type", c.contentType());
		}
		c.headers().forEach(builder::header);
		return http.send(builder.build());
	}

	private static String problem(Case c, WorkerHttp.Reply reply, LockIdentity identity) {
		if (reply.status() >= 500) {
			return "server error";
		}
		// a target id that looks like a lock key is the caller's own input echoed; the real key's digest never is
		String leak = leak(c.name().endsWith("=key") ? reply.body().replace(LockIdentity.KEY_PREFIX + "abc", "")
				: reply.body() + reply.headers(), identity);
		if (leak != null) {
			return leak;
		}
		if (c.name().contains("container:") || c.name().contains("outside:")) {
			// refused by Tomcat (TRACE) or outside /lease/v1 (Boot's own 404): no envelope, but no leak either
			return (reply.status() == 405 || reply.status() == 404 || reply.status() == 400) ? null
					: "expected the container's or Boot's refusal";
		}
		if ("HEAD".equals(c.method())) {
			return null;
		}
		JsonNode json;
		try {
			json = reply.json();
		}
		catch (RuntimeException ex) {
			return "not JSON";
		}
		if (reply.status() != 200 && (!"error".equals(json.path("status").asString(""))
				|| json.path("correlation_id").asString("").isEmpty() || !json.has("retryable"))) {
			return "not an error envelope";
		}
		if (c.expect() != 0 && reply.status() != c.expect()) {
			return "expected " + c.expect();
		}
		return null;
	}

	static String leak(String text, LockIdentity identity) {
		for (String leak : List.of(LockIdentity.KEY_PREFIX, identity.keyDigest(), "Exception", "exception", "\tat ",
				"redis", "Redis", "lettuce", "Lettuce", "org.springframework", "java.", "Tomcat",
				WorkerTestApplication.SECRET_A, WorkerTestApplication.SECRET_B, "prn_worker_b", "inst-b", ":6379", "127.0.0.1:")) {
			if (text.contains(leak)) {
				return "leaks " + leak;
			}
		}
		return null;
	}

	// -- generation --------------------------------------------------------------------------------------------

	static final List<String> OPERATIONS = List.of("acquire", "renew", "release", "inspect", "resolve",
			"authorize-commit");

	private static ObjectNode valid(String operation, String target, JsonNode lease) {
		ObjectNode body;
		switch (operation) {
			case "acquire":
				body = WorkerApiTests.acquireBody(target, "req-sweep-acquire", "inst-a");
				body.put("wait_ms", 0);
				body.put("maximum_lifetime_ms", 60000);
				ObjectNode metadata = body.putObject("metadata");
				metadata.put("source", "sweep");
				return body;
			case "resolve":
				body = F.objectNode();
				body.put("service_instance_id", "inst-a");
				body.set("lock_identity", WorkerApiTests.identity(target));
				body.put("operation", "acquire");
				body.put("request_id", "req-sweep-acquire");
				return body;
			case "inspect":
				body = WorkerApiTests.handleBody(lease, null, "inst-a");
				body.remove("fencing_token");
				return body;
			case "authorize-commit":
				return WorkerApiTests.handleBody(lease, null, "inst-a");
			default:
				return WorkerApiTests.handleBody(lease, "req-sweep-" + operation, "inst-a");
		}
	}

	/** Values that break a field: wrong types, bounds, syntax, encodings. */
	private static List<Map.Entry<String, JsonNode>> badValues() {
		Map<String, JsonNode> values = new LinkedHashMap<>();
		values.put("null", F.nullNode());
		values.put("true", F.booleanNode(true));
		values.put("zero", F.numberNode(0));
		values.put("negative", F.numberNode(-1));
		values.put("float", F.numberNode(1.5));
		values.put("huge-int", F.numberNode(new BigInteger("99999999999999999999999999")));
		values.put("long-max", F.numberNode(Long.MAX_VALUE));
		values.put("array", F.arrayNode().add("x"));
		values.put("object", F.objectNode().put("x", "y"));
		values.put("empty", F.stringNode(""));
		values.put("space", F.stringNode(" "));
		values.put("long-string", F.stringNode("x".repeat(300)));
		values.put("control", F.stringNode("a\u0000b"));
		values.put("newline", F.stringNode("a\nb"));
		values.put("path", F.stringNode("../etc/passwd"));
		values.put("slash", F.stringNode("a/b"));
		values.put("glob", F.stringNode("*"));
		values.put("key", F.stringNode(LockIdentity.KEY_PREFIX + "abc"));
		values.put("unicode", F.stringNode("\u202e\u0645\ud83d\ude00"));
		values.put("lone-surrogate", F.stringNode("\ud800"));
		values.put("numeric-string", F.stringNode("30000"));
		return new ArrayList<>(values.entrySet());
	}

	private static List<Case> cases(String target, JsonNode lease) {
		List<Case> cases = new ArrayList<>();
		Map<String, String> noHeaders = Map.of("Authorization", A);
		for (String operation : OPERATIONS) {
			String path = "/lease/v1/leases/" + operation;
			ObjectNode valid = valid(operation, target, lease);
			// every field: removed, or replaced by every bad value
			List<String> fields = new ArrayList<>();
			valid.propertyNames().forEach(fields::add);
			for (String field : fields) {
				ObjectNode removed = valid.deepCopy();
				removed.remove(field);
				cases.add(json(operation + " without " + field, path, removed, 0));
				for (Map.Entry<String, JsonNode> bad : badValues()) {
					ObjectNode changed = valid.deepCopy();
					changed.set(field, bad.getValue());
					cases.add(json(operation + " " + field + "=" + bad.getKey(), path, changed, 0));
				}
			}
			// every identity component
			for (String component : List.of("target_namespace", "target_id", "actor_name", "workflow_name",
					"operation_class")) {
				for (Map.Entry<String, JsonNode> bad : badValues()) {
					ObjectNode changed = valid.deepCopy();
					((ObjectNode) changed.get("lock_identity")).set(component, bad.getValue());
					// a numeric string is a valid slug; target ids may be long, unicode or look like anything
					boolean lenient = "numeric-string".equals(bad.getKey())
							|| "operation_class".equals(component) && bad.getValue().isNull()
							|| "operation_class".equals(component) && "empty".equals(bad.getKey())
							|| "target_id".equals(component) && List.of("long-string", "unicode", "key")
								.contains(bad.getKey());
					cases.add(json(operation + " lock_identity." + component + "=" + bad.getKey(), path, changed,
							lenient ? 0 : 400));
				}
			}
			// fields a worker may not set
			for (String field : List.of("tenant_id", "program_id", "lock_key", "owner_principal_id")) {
				ObjectNode top = valid.deepCopy();
				top.put(field, "x");
				cases.add(json(operation + " unknown " + field, path, top, 400));
				ObjectNode inIdentity = valid.deepCopy();
				((ObjectNode) inIdentity.get("lock_identity")).put(field, "x");
				cases.add(json(operation + " lock_identity unknown " + field, path, inIdentity, 400));
			}
			// deadlines, including extreme dates: 400, never 503
			for (String deadline : List.of("-292000000-01-01T00:00:00Z", "+292000000-01-01T00:00:00Z",
					"-1000000000-01-01T00:00:00Z", "+1000000000-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z",
					"0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
					"2026-12-01T25:00:00Z", "2026-12-01T00:00:00+25:00", "2026-12-01", "yesterday", "now",
					"1764547200000", "2026-12-01T00:00:00.0000000000000Z", "P1D", "x".repeat(41))) {
				ObjectNode changed = valid.deepCopy();
				changed.put("deadline_at", deadline);
				cases.add(json(operation + " deadline_at=" + deadline, path, changed, 400));
			}
			// durations and tokens
			for (String field : List.of("ttl_ms", "maximum_lifetime_ms", "wait_ms", "fencing_token")) {
				if (!valid.has(field)) {
					continue;
				}
				for (long value : new long[] { 0, -1, 1, 100, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 53, 86_400_001L * 1000 }) {
					ObjectNode changed = valid.deepCopy();
					changed.put(field, value);
					cases.add(json(operation + " " + field + "=" + value, path, changed, 0));
				}
			}
			// raw bodies and encodings
			Map<String, byte[]> raw = new LinkedHashMap<>();
			raw.put("empty", new byte[0]);
			raw.put("open-brace", "{".getBytes(StandardCharsets.UTF_8));
			raw.put("array", "[]".getBytes(StandardCharsets.UTF_8));
			raw.put("null", "null".getBytes(StandardCharsets.UTF_8));
			raw.put("number", "1".getBytes(StandardCharsets.UTF_8));
			raw.put("string", "\"x\"".getBytes(StandardCharsets.UTF_8));
			raw.put("two-objects", (valid + "{}").getBytes(StandardCharsets.UTF_8));
			raw.put("duplicate-key", ("{\"lease_id\":\"a\"," + valid.toString().substring(1))
				.getBytes(StandardCharsets.UTF_8));
			// Jackson detects a BOM and UTF-16 (RFC 8259 lets parsers accept them): not strict
			raw.put("bom", concat(new byte[] { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF },
					valid.toString().getBytes(StandardCharsets.UTF_8)));
			raw.put("utf-16", valid.toString().getBytes(StandardCharsets.UTF_16));
			raw.put("invalid-utf-8", concat(valid.toString().substring(0, 20).getBytes(StandardCharsets.UTF_8),
					new byte[] { (byte) 0xC3, 0x28, (byte) 0xFF }));
			raw.put("oversized", ("{\"pad\":\"" + "x".repeat(9000) + "\"}").getBytes(StandardCharsets.UTF_8));
			raw.put("deep", ("[".repeat(5000) + "]".repeat(5000)).getBytes(StandardCharsets.UTF_8));
			raw.put("deep-metadata", ("{\"metadata\":" + "{\"a\":".repeat(20) + "1" + "}".repeat(20) + "}")
				.getBytes(StandardCharsets.UTF_8));
			raw.put("comment", ("/*x*/" + valid).getBytes(StandardCharsets.UTF_8));
			raw.put("single-quotes", valid.toString().replace('"', '\'').getBytes(StandardCharsets.UTF_8));
			raw.put("nan", "{\"ttl_ms\":NaN}".getBytes(StandardCharsets.UTF_8));
			raw.put("long-number", ("{\"ttl_ms\":" + "9".repeat(100) + "}").getBytes(StandardCharsets.UTF_8));
			raw.put("nul-bytes", new byte[] { 0, 0, 0 });
			for (Map.Entry<String, byte[]> body : raw.entrySet()) {
				boolean lenient = List.of("bom", "utf-16").contains(body.getKey());
				cases.add(new Case(operation + " raw " + body.getKey(), "POST", path, body.getValue(),
						"application/json", noHeaders, lenient ? 0 : 400));
			}
			byte[] validBytes = valid.toString().getBytes(StandardCharsets.UTF_8);
			// content types
			for (String type : List.of("text/plain", "application/xml", "application/x-www-form-urlencoded",
					"multipart/form-data; boundary=x", "application/jsonx", "json", "*/*")) {
				cases.add(new Case(operation + " content-type " + type, "POST", path, validBytes, type, noHeaders,
						400));
			}
			cases.add(new Case(operation + " no content-type", "POST", path, validBytes, null, noHeaders, 400));
			// credentials
			Map<String, String> authorizations = new LinkedHashMap<>();
			authorizations.put("basic-empty", "Basic ");
			authorizations.put("basic-garbage", "Basic !!!!");
			authorizations.put("bearer", "Bearer abc");
			authorizations.put("wrong-secret", WorkerHttp.basic("key_worker_a", "wrong"));
			authorizations.put("unknown-id", WorkerHttp.basic("key_unknown", WorkerTestApplication.SECRET_A));
			authorizations.put("no-colon", "Basic " + Base64.getEncoder()
				.encodeToString("key_worker_a".getBytes(StandardCharsets.UTF_8)));
			authorizations.put("other-secret", WorkerHttp.basic("key_worker_a", WorkerTestApplication.SECRET_B));
			authorizations.put("huge", "Basic " + "A".repeat(4000));
			authorizations.put("lowercase-scheme", "basic xyz");
			for (Map.Entry<String, String> auth : authorizations.entrySet()) {
				cases.add(new Case(operation + " auth " + auth.getKey(), "POST", path, validBytes, "application/json",
						Map.of("Authorization", auth.getValue()), 401));
			}
			cases.add(new Case(operation + " no auth", "POST", path, validBytes, "application/json", Map.of(), 401));
			// service instance header
			ObjectNode withoutInstance = valid.deepCopy();
			withoutInstance.remove("service_instance_id");
			byte[] noInstance = withoutInstance.toString().getBytes(StandardCharsets.UTF_8);
			for (String instance : List.of("", " ", "a b", "x".repeat(129), "inst/1", "inst*", "\u00e9")) {
				cases.add(new Case(operation + " instance header '" + instance + "'", "POST", path, noInstance,
						"application/json", Map.of("Authorization", A, "X-Service-Instance-Id", instance), 400));
			}
			cases.add(new Case(operation + " instance header differs", "POST", path, validBytes, "application/json",
					Map.of("Authorization", A, "X-Service-Instance-Id", "inst-other"), 400));
			cases.add(new Case(operation + " no instance", "POST", path, noInstance, "application/json", noHeaders,
					400));
			// correlation ids are echoed only when valid
			for (String correlation : List.of("", "a b", "x".repeat(200), "<script>")) {
				cases.add(new Case(operation + " correlation '" + correlation + "'", "POST", path, validBytes,
						"application/json", Map.of("Authorization", A, "X-Correlation-Id", correlation), 0));
			}
			// methods
			for (String method : List.of("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE")) {
				cases.add(new Case(operation + ("TRACE".equals(method) ? " container:" : " ") + "method " + method,
						method, path,
						List.of("GET", "HEAD", "OPTIONS", "TRACE").contains(method) ? null : validBytes,
						"application/json", noHeaders, "TRACE".equals(method) ? 0 : 400));
			}
			// paths
			for (String suffix : List.of("/", "/x", "?x=1", "?", ";x=1", "/../" + operation)) {
				cases.add(new Case(operation + " path suffix " + suffix, "POST", path + suffix, validBytes,
						"application/json", noHeaders, 0));
			}
			cases.add(new Case(operation + " outside: uppercase path", "POST", path.toUpperCase(Locale.ROOT),
					validBytes, "application/json", noHeaders, 0));
		}
		for (String path : List.of("/lease/v1", "/lease/v1/", "/lease/v1/leases", "/lease/v1/leases/",
				"/lease/v1//leases/acquire", "/lease/v1/leases/list", "/lease/v1/leases/revoke",
				"/lease/v1/leases/force-release", "/lease/v1/openapi.yaml", "/lease/v2/leases/acquire")) {
			cases.add(new Case((path.startsWith("/lease/v1") ? "path " : "outside: path ") + path, "POST", path, "{}".getBytes(StandardCharsets.UTF_8),
					"application/json", Map.of("Authorization", A), 0));
		}
		return cases;
	}

	private static Case json(String name, String path, ObjectNode body, int expect) {
		return new Case(name, "POST", path, body.toString().getBytes(StandardCharsets.UTF_8), "application/json",
				Map.of("Authorization", A), expect);
	}

	private static byte[] concat(byte[] a, byte[] b) {
		byte[] all = new byte[a.length + b.length];
		System.arraycopy(a, 0, all, 0, a.length);
		System.arraycopy(b, 0, all, a.length, b.length);
		return all;
	}

	/** Requests no JDK client sends: bad percent-encoding, NUL and encoded slashes in the path, bad framing. */
	private List<String> rawRequests() {
		String auth = "Authorization: " + A + "\r\n";
		List<String> requests = new ArrayList<>();
		for (String path : List.of("/lease/v1/leases/%zz", "/lease/v1/leases/acquire%00", "/lease/v1/leases%2Facquire",
				"/lease/v1/leases/%C3%28", "/lease/v1/leases/acquire?%zz=1", "/lease/v1/leases/acquire#frag")) {
			requests.add("POST " + path + " HTTP/1.1\r\nHost: x\r\n" + auth
					+ "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
		}
		requests.add("POST /lease/v1/leases/acquire HTTP/1.1\r\nHost: x\r\n" + auth
				+ "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
		requests.add("POST /lease/v1/leases/acquire HTTP/1.1\r\nHost: x\r\n" + auth
				+ "Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{}");
		return requests;
	}

	private String rawSend(String request) throws Exception {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(15000);
			OutputStream out = socket.getOutputStream();
			out.write(request.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			socket.shutdownOutput();
			InputStream in = socket.getInputStream();
			return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
		}
	}

	private LeaseResult inspect(LockIdentity identity) {
		return this.service.inspect(InspectRequest.byIdentity(identity, this.service.newId(), this.service.deadline()));
	}

}
