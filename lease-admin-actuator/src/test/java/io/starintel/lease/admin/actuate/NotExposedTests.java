package io.starintel.lease.admin.actuate;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.starintel.lease.admin.actuate.ActuatorTestSupport.OPS;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.SCOPE;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 33: when {@code management.endpoints.web.exposure.include} does not name {@code targetleases}, the endpoint
 * is not served (404) and is absent from the actuator index.
 */
@SpringBootTest(classes = ActuatorTestSupport.UserApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=health")
class NotExposedTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		ActuatorTestSupport.properties(registry);
	}

	@LocalServerPort
	int port;

	@Autowired
	ActuatorTestSupport.AuditEvents events;

	@Test
	void whenNotExposedThenNotFoundAndAbsentFromTheIndex() {
		HttpResponse<String> list = get(this.port, "/actuator/targetleases" + SCOPE, OPS, "hidden-list-1");
		assertThat(list.statusCode()).isEqualTo(404);
		HttpResponse<String> index = get(this.port, "/actuator", OPS, "hidden-index-1");
		assertThat(index.statusCode()).as(index.body()).isEqualTo(200);
		assertThat(index.body()).contains("\"self\"").doesNotContain("targetleases");
		assertThat(this.events.of("hidden-list-1")).isEmpty();
	}

}
