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
import java.util.regex.Pattern;

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

	/**
	 * Sends a body; when the server accepted it (anything but 400: its parser found nothing wrong), the body must be
	 * valid against the operation's documented request schema.
	 */
	private Reply check(JsonNode description, JsonNode schemas, String operation, String body, List<String> observed)
			throws Exception {
		Reply reply = call("POST", "/lease/v1/leases/" + operation, body, true);
		if (reply.status() != 400) {
			assertThat(SchemaCheck.errors(requestSchema(description, operation), JSON.readTree(body), schemas))
				.as(operation + " accepted " + body + " (" + reply.status() + ") but its documented schema refuses it")
				.isEmpty();
		}
		return verify(description, schemas, operation, reply, observed);
	}

	private static JsonNode requestSchema(JsonNode description, String operation) {
		return description.path("paths").path("/lease/v1/leases/" + operation).path("post").path("requestBody")
			.path("content").path("application/json").path("schema");
	}

	/**
	 * The bodies a worker sends (each field the server accepts, e.g. the Python client's renew with
	 * {@code service_instance_id}, {@code deadline_at} and a new {@code ttl_ms}) are accepted by the server and valid
	 * against the served schemas; bodies the server refuses for a field (unknown, missing) are invalid there too.
	 */
	@Test
	void theBodiesTheServerAcceptsAreValidAgainstTheDocumentedSchemasAndRefusedOnesAreNot() throws Exception {
		JsonNode description = description();
		JsonNode schemas = description.path("components").path("schemas");
		String deadline = Instant.now().plusSeconds(20).toString();
		ObjectNode identity = JSON.createObjectNode()
			.put("target_namespace", "starintel-target")
			.put("target_id", "oa-" + UUID.randomUUID())
			.put("actor_name", "usernamegen")
			.put("workflow_name", "default")
			.put("operation_class", "default");
		ObjectNode acquire = JSON.createObjectNode().put("request_id", "req-" + UUID.randomUUID())
			.put("deadline_at", deadline).put("service_instance_id", "inst-openapi").put("ttl_ms", 30000)
			.put("maximum_lifetime_ms", 60000).put("wait_ms", 0).put("execution_id", "e1").put("job_id", "j1")
			.put("trace_id", "t1");
		acquire.set("lock_identity", identity);
		acquire.putObject("metadata").put("worker", "python");
		List<String> observed = new ArrayList<>();
		Reply acquired = check(description, schemas, "acquire", acquire.toString(), observed);
		assertThat(acquired.status()).as(acquired.body().toString()).isEqualTo(200);
		JsonNode lease = acquired.body().path("lease");
		ObjectNode handle = JSON.createObjectNode().put("deadline_at", deadline)
			.put("service_instance_id", "inst-openapi").put("lease_id", lease.path("lease_id").asString())
			.put("fencing_token", lease.path("fencing_token").asLong());
		handle.set("lock_identity", identity);
		ObjectNode renew = handle.deepCopy().put("request_id", "req-" + UUID.randomUUID()).put("ttl_ms", 45000);
		assertThat(check(description, schemas, "renew", renew.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "renew", handle.deepCopy().put("request_id", "req-" + UUID.randomUUID())
			.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "authorize-commit", handle.toString(), observed).status())
			.isEqualTo(200);
		ObjectNode inspect = handle.deepCopy();
		inspect.remove("fencing_token");
		assertThat(check(description, schemas, "inspect", inspect.toString(), observed).status()).isEqualTo(200);
		ObjectNode resolve = JSON.createObjectNode().put("deadline_at", deadline)
			.put("service_instance_id", "inst-openapi").put("operation", "acquire")
			.put("request_id", acquire.path("request_id").asString());
		resolve.set("lock_identity", identity);
		assertThat(check(description, schemas, "resolve", resolve.toString(), observed).status()).isEqualTo(200);
		assertThat(check(description, schemas, "release", handle.deepCopy().put("request_id", "req-" + UUID.randomUUID())
			.toString(), observed).status()).isEqualTo(200);
		// refused for a field by the server, and by the schema
		ObjectNode unknownField = handle.deepCopy().put("request_id", "req-" + UUID.randomUUID()).put("tenant_id", "x");
		ObjectNode missingField = handle.deepCopy().put("request_id", "req-" + UUID.randomUUID());
		missingField.remove("lease_id");
		ObjectNode ttlOnRelease = handle.deepCopy().put("request_id", "req-" + UUID.randomUUID()).put("ttl_ms", 45000);
		for (String operation : List.of("renew", "release")) {
			for (ObjectNode refused : List.of(unknownField, missingField)) {
				assertThat(check(description, schemas, operation, refused.toString(), observed).status()).isEqualTo(400);
				assertThat(SchemaCheck.errors(requestSchema(description, operation), refused, schemas)).isNotEmpty();
			}
		}
		assertThat(check(description, schemas, "release", ttlOnRelease.toString(), observed).status()).isEqualTo(400);
		assertThat(SchemaCheck.errors(requestSchema(description, "release"), ttlOnRelease, schemas)).isNotEmpty();
	}

	/**
	 * The JSON Schema keywords the description uses (OpenAPI 3.0), checked as a validator does: {@code $ref},
	 * {@code allOf} (each part on its own: {@code additionalProperties} sees only its part's {@code properties}),
	 * {@code type}, {@code required}, {@code properties}, {@code additionalProperties}, {@code enum}, {@code pattern},
	 * {@code minimum}; annotations are ignored and any other keyword fails the check (so none is silently skipped).
	 */
	static final class SchemaCheck {

		private static final Set<String> ANNOTATIONS = Set.of("description", "default", "format", "example");

		private static final Set<String> CHECKED = Set.of("$ref", "allOf", "type", "required", "properties",
				"additionalProperties", "enum", "pattern", "minimum");

		static List<String> errors(JsonNode schema, JsonNode value, JsonNode schemas) {
			List<String> errors = new ArrayList<>();
			check(schema, value, schemas, "$", errors);
			return errors;
		}

		private static void check(JsonNode schema, JsonNode value, JsonNode schemas, String at, List<String> errors) {
			for (String keyword : schema.propertyNames()) {
				assertThat(CHECKED.contains(keyword) || ANNOTATIONS.contains(keyword))
					.as("schema keyword " + keyword + " at " + at + " is not checked by this test").isTrue();
			}
			if (schema.has("$ref")) {
				String ref = schema.path("$ref").asString();
				check(schemas.path(ref.substring(ref.lastIndexOf('/') + 1)), value, schemas, at, errors);
				return;
			}
			for (JsonNode part : schema.path("allOf")) {
				check(part, value, schemas, at, errors);
			}
			String type = schema.path("type").asString("");
			boolean typed = switch (type) {
				case "" -> true;
				case "object" -> value.isObject();
				case "string" -> value.isString();
				case "integer" -> value.isIntegralNumber();
				case "number" -> value.isNumber();
				case "boolean" -> value.isBoolean();
				case "array" -> value.isArray();
				default -> false;
			};
			if (!typed) {
				errors.add(at + ": not " + type);
				return;
			}
			boolean listed = false;
			for (JsonNode allowed : schema.path("enum")) {
				listed = listed || allowed.equals(value);
			}
			if (schema.has("enum") && !listed) {
				errors.add(at + ": not one of " + schema.path("enum"));
			}
			if (schema.has("pattern") && value.isString()
					&& !Pattern.compile(schema.path("pattern").asString()).matcher(value.asString()).find()) {
				errors.add(at + ": does not match " + schema.path("pattern").asString());
			}
			if (schema.has("minimum") && value.isNumber()
					&& value.decimalValue().compareTo(schema.path("minimum").decimalValue()) < 0) {
				errors.add(at + ": below " + schema.path("minimum"));
			}
			if (!value.isObject()) {
				return;
			}
			for (JsonNode required : schema.path("required")) {
				if (!value.has(required.asString())) {
					errors.add(at + ": '" + required.asString() + "' is required");
				}
			}
			JsonNode properties = schema.path("properties");
			JsonNode additional = schema.path("additionalProperties");
			for (String field : value.propertyNames()) {
				if (properties.has(field)) {
					check(properties.path(field), value.path(field), schemas, at + "." + field, errors);
				}
				else if (additional.isBoolean() && !additional.asBoolean()) {
					errors.add(at + ": '" + field + "' was unexpected");
				}
				else if (additional.isObject()) {
					check(additional, value.path(field), schemas, at + "." + field, errors);
				}
			}
		}

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
