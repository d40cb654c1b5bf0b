package io.starintel.lease.admin.actuate;

import java.net.http.HttpResponse;
import java.time.Duration;

import io.starintel.lease.core.ResultCode;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.starintel.lease.admin.actuate.ActuatorTestSupport.ADMIN;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.OPS;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.SCOPE;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.get;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.post;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 33: with {@code management.server.port} set, the admin endpoint is served by the management server only
 * (with its security, audit filter and strict input rules there), and the application's port does not know it.
 */
@SpringBootTest(classes = ActuatorTestSupport.UserApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.server.port=0", "management.server.base-path=/manage" })
class ManagementPortTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		ActuatorTestSupport.properties(registry);
	}

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	@Autowired
	ActuatorTestSupport.AuditEvents events;

	@Test
	void whenTheManagementPortIsSetThenTheEndpointAnswersThereAndNotOnTheApplicationPort() {
		HttpResponse<String> list = get(this.managementPort, "/manage/actuator/targetleases" + SCOPE, ADMIN,
				"mgmt-list-1");
		assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
		assertThat(list.body()).contains("\"code\":\"lease_listed\"");
		assertThat(list.headers().firstValue("X-Correlation-Id")).hasValue("mgmt-list-1");
		// on the application's port, a caller the application authenticates finds nothing there
		assertThat(get(this.port, "/actuator/targetleases" + SCOPE, OPS, "app-list-1").statusCode()).isEqualTo(404);
		assertThat(get(this.port, "/manage/actuator/targetleases" + SCOPE, OPS, "app-list-2").statusCode())
			.isEqualTo(404);
		Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(this.events.of("mgmt-list-1"))
			.singleElement()
			.satisfies((event) -> assertThat(event.resultCode()).isEqualTo(ResultCode.LEASE_LISTED)));
		assertThat(this.events.of("app-list-1")).isEmpty();
	}

	@Test
	void onTheManagementPortANestedBodyReachesTheOperationAndMalformedInputIsAuditedOnce() {
		HttpResponse<String> revoke = post(this.managementPort, "/manage/actuator/targetleases/revoke",
				ActuatorTestSupport.revokeBody(), ADMIN, "mgmt-revoke-1");
		// answered by the store through the contract (a missing lease), not by Boot's argument binding
		assertThat(revoke.statusCode()).as(revoke.body()).isNotEqualTo(400).isBetween(400, 499);
		assertThat(revoke.body()).contains("\"correlation_id\":\"mgmt-revoke-1\"");
		HttpResponse<String> malformed = post(this.managementPort, "/manage/actuator/targetleases/revoke",
				"{\"request_id\":1}", ADMIN, "mgmt-revoke-2");
		assertThat(malformed.statusCode()).isEqualTo(400);
		assertThat(malformed.body()).contains("\"code\":\"invalid_lease_request\"");
		HttpResponse<String> unauthenticated = get(this.managementPort, "/manage/actuator/targetleases" + SCOPE,
				ActuatorTestSupport.basic("cred-admin-actuate", "wrong"), "mgmt-list-401");
		assertThat(unauthenticated.statusCode()).isEqualTo(401);
		assertThat(unauthenticated.body()).contains("\"code\":\"invalid_credential\"");
		Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			assertThat(this.events.of("mgmt-revoke-1")).hasSize(1);
			assertThat(this.events.of("mgmt-revoke-2")).singleElement()
				.satisfies((event) -> assertThat(event.resultCode()).isEqualTo(ResultCode.INVALID_LEASE_REQUEST));
			assertThat(this.events.of("mgmt-list-401")).singleElement()
				.satisfies((event) -> assertThat(event.resultCode()).isEqualTo(ResultCode.INVALID_CREDENTIAL));
		});
	}

	@Test
	void whenTheManagementPortIsSetThenTheConsoleIsServedThereAndNotOnTheApplicationPort() {
		HttpResponse<String> login = get(this.managementPort, "/manage/actuator/targetleases-console/login", null,
				"mgmt-console-1");
		assertThat(login.statusCode()).isEqualTo(200);
		assertThat(login.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("text/html"));
		HttpResponse<String> api = get(this.managementPort, "/manage/actuator/targetleases-console/api/leases" + SCOPE,
				null, "mgmt-console-2");
		assertThat(api.statusCode()).isEqualTo(401);
		assertThat(api.body()).contains("\"code\":\"invalid_credential\"");
		// the application's port has no console: its security may refuse the path (401) or nothing serves it (404)
		HttpResponse<String> appLogin = get(this.port, "/actuator/targetleases-console/login", OPS, "app-console-1");
		assertThat(appLogin.statusCode()).isIn(401, 404);
		assertThat(appLogin.body()).doesNotContainIgnoringCase("<html");
		Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(
				() -> assertThat(this.events.of("mgmt-console-2")).hasSize(1));
	}

}
