package io.starintel.lease.admin.actuate;

import java.net.http.HttpResponse;
import java.time.Duration;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.starintel.lease.admin.actuate.ActuatorTestSupport.ADMIN;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.SCOPE;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.get;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.post;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 33: {@code management.endpoints.access.max-permitted=read-only} leaves list and inspect working; Spring Boot
 * refuses revoke, force-release and recover itself (405, its own body), and the refusal is audited once, as
 * {@code access_denied}, with the caller's correlation id echoed.
 */
@SpringBootTest(classes = ActuatorTestSupport.UserApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.access.max-permitted=read-only")
class ReadOnlyAccessTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		ActuatorTestSupport.properties(registry);
	}

	@LocalServerPort
	int port;

	@Autowired
	ActuatorTestSupport.AuditEvents events;

	@Test
	void whenAccessIsReadOnlyThenListWorksAndRevokeAndForceReleaseAreRefusedAndAudited() {
		HttpResponse<String> list = get(this.port, "/actuator/targetleases" + SCOPE, ADMIN, "ro-list-1");
		assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
		HttpResponse<String> inspect = get(this.port, "/actuator/targetleases/lease_missing" + SCOPE, ADMIN,
				"ro-inspect-1");
		assertThat(inspect.statusCode()).as(inspect.body()).isEqualTo(404);
		assertThat(inspect.body()).contains("\"code\":\"lease_not_found\"");
		HttpResponse<String> revoke = post(this.port, "/actuator/targetleases/revoke",
				ActuatorTestSupport.revokeBody(), ADMIN, "ro-revoke-1");
		assertThat(revoke.statusCode()).isEqualTo(405);
		assertThat(revoke.headers().firstValue("X-Correlation-Id")).hasValue("ro-revoke-1");
		HttpResponse<String> forceRelease = post(this.port, "/actuator/targetleases/force-release",
				ActuatorTestSupport.revokeBody(), ADMIN, "ro-force-1");
		assertThat(forceRelease.statusCode()).isEqualTo(405);
		HttpResponse<String> recover = post(this.port, "/actuator/targetleases/recover",
				"{\"tenant_id\":\"tenant-a\",\"program_id\":\"p\",\"reason\":\"restore\"}", ADMIN, "ro-recover-1");
		assertThat(recover.statusCode()).isEqualTo(405);
		assertThat(recover.headers().firstValue("X-Correlation-Id")).hasValue("ro-recover-1");
		Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			assertThat(this.events.of("ro-list-1")).hasSize(1);
			assertThat(this.events.of("ro-revoke-1")).singleElement().satisfies((event) -> {
				assertThat(event.eventType()).isEqualTo(AuditEventType.REVOKE);
				assertThat(event.resultCode()).isEqualTo(ResultCode.ACCESS_DENIED);
			});
			assertThat(this.events.of("ro-force-1")).singleElement()
				.satisfies((event) -> assertThat(event.eventType()).isEqualTo(AuditEventType.FORCE_RELEASE));
			assertThat(this.events.of("ro-recover-1")).singleElement().satisfies((event) -> {
				assertThat(event.eventType()).isEqualTo(AuditEventType.REVOKE);
				assertThat(event.resultCode()).isEqualTo(ResultCode.ACCESS_DENIED);
			});
		});
	}

}
