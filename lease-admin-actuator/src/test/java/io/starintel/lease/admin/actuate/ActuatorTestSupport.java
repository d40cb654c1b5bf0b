package io.starintel.lease.admin.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.test.RedisContainerConnection;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The application of the actuator tests as a user assembles it: auto-configuration only (the Redis store, the audit
 * sinks, the endpoint and its security), no store or endpoint bean of its own; one administrator credential, and
 * Spring Boot's default user for the rest of the actuator.
 */
final class ActuatorTestSupport {

	static final String PASSWORD = "pw-" + UUID.randomUUID();

	static final String OPS_PASSWORD = "ops-" + UUID.randomUUID();

	static final String TENANT = "tenant-actuate";

	static final String PROGRAM = "p-" + UUID.randomUUID().toString().substring(0, 8);

	static final String ADMIN = basic("cred-admin-actuate", PASSWORD);

	static final String OPS = basic("ops", OPS_PASSWORD);

	static final String SCOPE = "?tenant_id=" + TENANT + "&program_id=" + PROGRAM;

	private static final HttpClient CLIENT = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private ActuatorTestSupport() {
	}

	static void properties(DynamicPropertyRegistry registry) {
		String p = "starintel.lease.admin.credentials[0].";
		registry.add(p + "principal", () -> "admin-actuate");
		registry.add(p + "credential-id", () -> "cred-admin-actuate");
		registry.add(p + "secret-hash", () -> "{bcrypt}" + new BCryptPasswordEncoder(4).encode(PASSWORD));
		registry.add(p + "kind", () -> "administrator");
		registry.add(p + "capabilities", () -> "targets:read,targets:force-release,targets:revoke");
		registry.add(p + "tenant", () -> TENANT);
		registry.add(p + "programs", () -> PROGRAM);
		registry.add("spring.security.user.name", () -> "ops");
		registry.add("spring.security.user.password", () -> OPS_PASSWORD);
	}

	static String basic(String user, String password) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
	}

	static HttpResponse<String> get(int port, String path, @Nullable String authorization, String correlationId) {
		return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET(), authorization,
				correlationId);
	}

	static HttpResponse<String> post(int port, String path, String body, String authorization,
			String correlationId) {
		return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", "application/json"), authorization, correlationId);
	}

	private static HttpResponse<String> send(HttpRequest.Builder request, @Nullable String authorization,
			String correlationId) {
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		request.header("X-Correlation-Id", correlationId);
		request.timeout(Duration.ofSeconds(10));
		try {
			return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** A revoke body for a lease that does not exist: well-formed, answered by the store (never a success). */
	static String revokeBody() {
		return "{\"request_id\":\"req-" + UUID.randomUUID() + "\",\"lock_identity\":{\"tenant_id\":\"" + TENANT
				+ "\",\"program_id\":\"" + PROGRAM + "\",\"target_namespace\":\"starintel-target\","
				+ "\"target_id\":\"t-1\",\"actor_name\":\"usernamegen\",\"workflow_name\":\"default\"},"
				+ "\"lease_id\":\"lease_missing\",\"fencing_token\":1,\"reason\":\"test\"}";
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(RedisContainerConnection.class)
	static class UserApplication {

		@Bean
		AuditEvents auditEvents() {
			return new AuditEvents();
		}

	}

	/** The audit events of each correlation id (the application-event sink). */
	static class AuditEvents {

		private final Map<String, List<AuditEvent>> byCorrelation = new ConcurrentHashMap<>();

		@EventListener
		void on(AuditEvent event) {
			if (event.correlationId() != null) {
				this.byCorrelation.computeIfAbsent(event.correlationId(), (k) -> new CopyOnWriteArrayList<>())
					.add(event);
			}
		}

		List<AuditEvent> of(String correlationId) {
			return this.byCorrelation.getOrDefault(correlationId, List.of());
		}

	}

}
