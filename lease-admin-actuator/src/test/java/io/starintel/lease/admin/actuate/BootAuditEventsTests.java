package io.starintel.lease.admin.actuate;

import java.net.http.HttpResponse;
import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.starintel.lease.admin.actuate.ActuatorTestSupport.ADMIN;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.OPS;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.SCOPE;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 33: with an {@link AuditEventRepository}, admin requests (accepted and refused) appear in Spring Boot's
 * {@code /actuator/auditevents}, under their wire type, with the caller's principal id.
 */
@SpringBootTest(classes = ActuatorTestSupport.UserApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=targetleases,auditevents")
@Import(BootAuditEventsTests.Repository.class)
class BootAuditEventsTests {

	@TestConfiguration(proxyBeanMethods = false)
	static class Repository {

		@Bean
		InMemoryAuditEventRepository auditEventRepository() {
			return new InMemoryAuditEventRepository();
		}

	}

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		ActuatorTestSupport.properties(registry);
	}

	@LocalServerPort
	int port;

	@Test
	void whenAnAuditEventRepositoryExistsThenAdminRequestsAreInTheActuatorsAuditEvents() {
		assertThat(get(this.port, "/actuator/targetleases" + SCOPE, ADMIN, "boot-audit-1").statusCode())
			.isEqualTo(200);
		assertThat(get(this.port, "/actuator/targetleases?tenant_id=x", ADMIN, "boot-audit-2").statusCode())
			.isEqualTo(400);
		Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			HttpResponse<String> events = get(this.port, "/actuator/auditevents?type=target_lease_list", OPS,
					"boot-audit-read");
			assertThat(events.statusCode()).as(events.body()).isEqualTo(200);
			assertThat(events.body()).contains("\"principal\":\"admin-actuate\"")
				.contains("boot-audit-1")
				.contains("boot-audit-2")
				.contains("lease_listed")
				.contains("invalid_lease_request");
		});
	}

}
