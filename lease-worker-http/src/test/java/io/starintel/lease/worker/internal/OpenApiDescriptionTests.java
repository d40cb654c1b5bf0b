package io.starintel.lease.worker.internal;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.starintel.lease.test.RedisContainerConnection;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-kept OpenAPI description ({@code openapi.json}, served at {@code /lease/v1/openapi.json}) checked against
 * the running endpoints on real Redis (a container through {@code @ServiceConnection} when the run uses containers,
 * {@link RedisContainerConnection}): every documented path and method exists and answers only documented status
 * codes with the documented required fields; every operation the controller dispatches, and every handler mapping
 * under {@code /lease/v1}, is documented.
 */
@SpringBootTest(classes = OpenApiDescriptionTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpenApiDescriptionTests {

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(RedisContainerConnection.class)
	static class App {

	}

	static final String SECRET = "secret-" + UUID.randomUUID();

	static final String PROGRAM = "p-" + UUID.randomUUID().toString().substring(0, 8);

	static final JsonMapper JSON = JsonMapper.builder().build();

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		String prefix = "starintel.lease.worker-http.credentials[0].";
		registry.add(prefix + "principal", () -> "prn_openapi");
		registry.add(prefix + "credential-id", () -> "key_openapi");
		registry.add(prefix + "secret-hash", () -> "{bcrypt}" + new BCryptPasswordEncoder(4).encode(SECRET));
		registry.add(prefix + "tenant", () -> "tenant-openapi");
		registry.add(prefix + "program", () -> PROGRAM);
	}

	@LocalServerPort
	int port;

	@Autowired
	@Qualifier("requestMappingHandlerMapping")
	RequestMappingHandlerMapping mappings;

	final HttpClient client = HttpClient.newHttpClient();

	record Reply(int status, JsonNode body) {
	}

	Reply call(String method, String path, String body, boolean authenticated) throws Exception {
		HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body)
					: HttpRequest.BodyPublishers.noBody())
			.header("Content-Type", "application/json")
			.header("X-Service-Instance-Id", "inst-openapi");
		if (authenticated) {
			builder.header("Authorization", "Basic " + Base64.getEncoder()
				.encodeToString(("key_openapi:" + SECRET).getBytes(StandardCharsets.UTF_8)));
		}
		HttpResponse<String> response = this.client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
		return new Reply(response.statusCode(), JSON.readTree(response.body()));
	}

	JsonNode description() throws Exception {
		Reply reply = call("GET", WorkerController.OPENAPI_PATH, null, false);
		assertThat(reply.status()).isEqualTo(200);
		return reply.body();
	}

	@Test
	void everyDispatchedOperationAndMappingIsDocumentedAndNothingElse() throws Exception {
		JsonNode paths = description().path("paths");
		Set<String> documented = new HashSet<>();
		paths.propertyNames().forEach(documented::add);
		Set<String> served = new HashSet<>();
		for (WorkerOperation operation : WorkerOperation.values()) {
			served.add(WorkerController.BASE_PATH + operation.path());
			assertThat(paths.path(WorkerController.BASE_PATH + operation.path()).has("post")).isTrue();
		}
		served.add(WorkerController.OPENAPI_PATH);
		assertThat(documented).containsExactlyInAnyOrderElementsOf(served);
		// the controller's only mappings are its subtree: the operations above are its whole dispatch table
		for (RequestMappingInfo info : this.mappings.getHandlerMethods().keySet()) {
			for (String pattern : info.getPatternValues()) {
				if (pattern.startsWith("/lease")) {
					assertThat(pattern).isIn(WorkerController.BASE_PATH, WorkerController.BASE_PATH + "/**");
				}
			}
		}
	}

	/** The request body each operation documents has exactly the fields its parser accepts (e.g. renew's ttl_ms). */
	@Test
	void everyRequestSchemaDocumentsExactlyTheAcceptedFields() throws Exception {
		JsonNode description = description();
		JsonNode schemas = description.path("components").path("schemas");
		for (WorkerOperation operation : WorkerOperation.values()) {
			JsonNode schema = description.path("paths").path(WorkerController.BASE_PATH + operation.path())
				.path("post").path("requestBody").path("content").path("application/json").path("schema");
			Set<String> documented = new HashSet<>();
			collectProperties(schema, schemas, documented);
			assertThat(documented).as(operation.path()).containsExactlyInAnyOrderElementsOf(operation.fields());
		}
	}

	private static void collectProperties(JsonNode schema, JsonNode schemas, Set<String> into) {
		if (schema.has("$ref")) {
			String ref = schema.path("$ref").asString();
			collectProperties(schemas.path(ref.substring(ref.lastIndexOf('/') + 1)), schemas, into);
		}
		for (JsonNode part : schema.path("allOf")) {
			collectProperties(part, schemas, into);
		}
		schema.path("properties").propertyNames().forEach(into::add);
	}

	@Test
	void everyDocumentedOperationAnswersOnlyDocumentedStatusesWithTheDocumentedFields() throws Exception {
		JsonNode description = description();
		JsonNode schemas = description.path("components").path("schemas");
		String target = "oa-" + UUID.randomUUID();
		String acquireId = "req-" + UUID.randomUUID();
		ObjectNode identity = JSON.createObjectNode()
			.put("target_namespace", "starintel-target")
			.put("target_id", target)
			.put("actor_name", "usernamegen")
			.put("workflow_name", "default");
		ObjectNode acquire = JSON.createObjectNode().put("request_id", acquireId).put("ttl_ms", 30000)
			.put("execution_id", "e1").put("job_id", "j1").put("trace_id", "t1");
		acquire.set("lock_identity", identity);
		List<String> observed = new ArrayList<>();
		Reply acquired = check(description, schemas, "acquire", acquire.toString(), observed);
		assertThat(acquired.status()).isEqualTo(200);
		JsonNode lease = acquired.body().path("lease");
		ObjectNode handle = JSON.createObjectNode().put("lease_id", lease.path("lease_id").asString())
			.put("fencing_token", lease.path("fencing_token").asLong());
		handle.set("lock_identity", identity);
		ObjectNode inspect = handle.deepCopy();
		inspect.remove("fencing_token");
		ObjectNode resolve = JSON.createObjectNode().put("operation", "acquire").put("request_id", acquireId);
		resolve.set("lock_identity", identity);
		// success of each, then the refusals each documents
		assertThat(check(description, schemas, "renew", handle.deepCopy().put("request_id", "r-" + UUID.randomUUID())
			.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "renew", handle.deepCopy().put("request_id", "r-" + UUID.randomUUID())
			.put("ttl_ms", 45000).toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "inspect", inspect.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "resolve", resolve.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "authorize-commit", handle.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "acquire", acquire.deepCopy().put("request_id", "r-" + UUID.randomUUID())
			.toString(), observed).status()).isEqualTo(409);
		assertThat(check(description, schemas, "acquire", acquire.deepCopy().put("ttl_ms", 20000).toString(), observed)
			.status()).isEqualTo(409);
		assertThat(check(description, schemas, "release", handle.deepCopy().put("request_id", "r-" + UUID.randomUUID())
			.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "renew", handle.deepCopy().put("request_id", "r-" + UUID.randomUUID())
			.toString(), observed).status()).isEqualTo(409);
		assertThat(check(description, schemas, "release", handle.deepCopy().put("request_id", "r-" + UUID.randomUUID())
			.toString(), observed).status()).isEqualTo(409);
		assertThat(check(description, schemas, "inspect", inspect.toString(), observed).status()).isEqualTo(404);
		assertThat(check(description, schemas, "resolve", resolve.deepCopy().put("request_id", "nope").toString(),
				observed).status()).isEqualTo(404);
		assertThat(check(description, schemas, "authorize-commit", handle.toString(), observed).status())
			.isEqualTo(409);
		for (String operation : List.of("acquire", "renew", "release", "inspect", "resolve", "authorize-commit")) {
			assertThat(checkUnauthenticated(description, schemas, operation, observed)).isEqualTo(401);
			assertThat(check(description, schemas, operation, "{}", observed).status()).isEqualTo(400);
			ObjectNode late = JSON.createObjectNode();
			JsonNode body = "acquire".equals(operation) ? acquire : "inspect".equals(operation) ? inspect
					: "resolve".equals(operation) ? resolve : "authorize-commit".equals(operation) ? handle
					: handle.deepCopy().put("request_id", "r-late");
			late.setAll((ObjectNode) body);
			late.put("deadline_at", Instant.now().minusSeconds(2).toString());
			Reply lateReply = check(description, schemas, operation, late.toString(), observed);
			assertThat(lateReply.status()).as(operation + " " + lateReply.body()).isEqualTo(408);
		}
		assertThat(observed).hasSizeGreaterThan(30);
	}

	private Reply check(JsonNode description, JsonNode schemas, String operation, String body, List<String> observed)
			throws Exception {
		return verify(description, schemas, operation, call("POST", "/lease/v1/leases/" + operation, body, true),
				observed);
	}

	private int checkUnauthenticated(JsonNode description, JsonNode schemas, String operation, List<String> observed)
			throws Exception {
		return verify(description, schemas, operation, call("POST", "/lease/v1/leases/" + operation, "{}", false),
				observed).status();
	}

	private Reply verify(JsonNode description, JsonNode schemas, String operation, Reply reply, List<String> observed) {
		JsonNode responses = description.path("paths").path("/lease/v1/leases/" + operation).path("post")
			.path("responses");
		String status = Integer.toString(reply.status());
		assertThat(responses.has(status)).as(operation + " answered undocumented " + status + " " + reply.body())
			.isTrue();
		String ref = responses.path(status).path("content").path("application/json").path("schema").path("$ref")
			.asString();
		JsonNode schema = schemas.path(ref.substring(ref.lastIndexOf('/') + 1));
		requireFields(schema, reply.body(), schemas, operation + " " + status);
		if (reply.status() == 200) {
			requireFields(schemas.path("Lease"), reply.body().path("lease"), schemas, operation + " lease");
			assertThat(schema.path("properties").path("code").path("enum").toString())
				.contains("\"" + reply.body().path("code").asString() + "\"");
		}
		else {
			assertThat(schemas.path("Error").path("properties").path("code").path("enum").toString())
				.contains("\"" + reply.body().path("code").asString() + "\"");
			assertThat(reply.body().has("retry_after_ms")).isEqualTo(reply.body().path("retryable").asBoolean());
		}
		observed.add(operation + " " + status);
		return reply;
	}

	private static void requireFields(JsonNode schema, JsonNode body, JsonNode schemas, String where) {
		for (JsonNode field : schema.path("required")) {
			assertThat(body.has(field.asString())).as(where + " lacks " + field.asString() + ": " + body).isTrue();
		}
	}

}
