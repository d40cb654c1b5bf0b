package io.starintel.lease.admin.it;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 503 from a real Redis store pointed at a closed port (no stub), and 429 from per-tenant admission control (a
 * bucket of 3 operations that refills once per ~17 minutes, so no timing is involved).
 */
@SpringBootTest(classes = AdminTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.admin.admission.burst=3",
				"starintel.lease.admin.admission.permits-per-second=0.001" })
@Import(BackendDownAndAdmissionTests.ClosedPortStore.class)
class BackendDownAndAdmissionTests {

	static final String PASSWORD = "pw-" + UUID.randomUUID();

	static final String PROGRAM = "p-" + UUID.randomUUID().toString().substring(0, 8);

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		String p = "starintel.lease.admin.credentials[0].";
		registry.add(p + "principal", () -> "admin-down");
		registry.add(p + "credential-id", () -> "cred-admin-down");
		registry.add(p + "secret-hash", () -> "{bcrypt}" + new BCryptPasswordEncoder(4).encode(PASSWORD));
		registry.add(p + "kind", () -> "administrator");
		registry.add(p + "capabilities", () -> "targets:read,targets:force-release,targets:revoke");
		registry.add(p + "tenant", () -> "tenant-down");
		registry.add(p + "programs", () -> PROGRAM);
	}

	static LettuceConnectionFactory closedPort;

	@TestConfiguration(proxyBeanMethods = false)
	static class ClosedPortStore {

		@Bean
		LeaseStore leaseStore() {
			closedPort = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
			closedPort.afterPropertiesSet();
			return new RedisLeaseStore(closedPort, LeasePolicy.defaults(), LeaseAlerts.LOG);
		}

	}

	@AfterAll
	static void close() {
		if (closedPort != null) {
			closedPort.destroy();
		}
	}

	@LocalServerPort
	int port;

	@Test
	void unreachableBackendIs503ThenAdmissionControlIs429() {
		AdminHttp http = new AdminHttp(this.port);
		String admin = AdminHttp.basic("cred-admin-down", PASSWORD);
		List<AdminHttp.Reply> replies = new ArrayList<>();
		replies.add(http.get("?tenant_id=tenant-down&program_id=" + PROGRAM, admin));
		replies.add(http.get("/lease_1?tenant_id=tenant-down&program_id=" + PROGRAM, admin));
		ObjectNode body = AdminHttp.JSON.createObjectNode();
		body.put("request_id", "req-down-1");
		ObjectNode identity = body.putObject("lock_identity");
		identity.put("tenant_id", "tenant-down");
		identity.put("program_id", PROGRAM);
		identity.put("target_namespace", "ns");
		identity.put("target_id", "t-1");
		identity.put("actor_name", "actor");
		identity.put("workflow_name", "default");
		body.put("lease_id", "lease_1");
		body.put("fencing_token", 42);
		body.put("reason", "backend down");
		body.put("deadline_at", Instant.now().plusSeconds(2).toString());
		replies.add(http.post("/revoke", AbstractAdminEndpointTests.text(body), admin));
		// a node recovery the store could not run: retryable 503, never the "not a primary" 400 of a deployment that
		// answers (admitted under the node-wide bucket, not the tenant's)
		replies.add(http.post("/recover", "{\"node\":\"10.0.0.12:6379\",\"reason\":\"backend down\",\"deadline_at\":\""
				+ Instant.now().plusSeconds(2) + "\"}", admin));
		for (AdminHttp.Reply reply : replies) {
			assertThat(reply.status()).as(reply.body()).isEqualTo(503);
			assertThat(reply.code()).isIn("lease_backend_unavailable", "lease_outcome_unknown");
			assertThat(reply.json().get("retryable").asBoolean()).isTrue();
			assertThat(reply.body()).doesNotContain("127.0.0.1").doesNotContain("Redis").doesNotContain("redis")
				.doesNotContain("Exception").doesNotContain(":1");
		}
		// the bucket of 3 is used up: the fourth operation of the tenant is rate limited
		AdminHttp.Reply limited = http.get("?tenant_id=tenant-down&program_id=" + PROGRAM, admin);
		AbstractAdminEndpointTests.assertError(limited, 429, "lease_rate_limited");
		assertThat(limited.json().get("retry_after_ms").asLong()).isPositive();
		assertThat(limited.json().get("retryable").asBoolean()).isTrue();
		assertThat(limited.headers().firstValue("Retry-After")).isPresent();
	}

}
