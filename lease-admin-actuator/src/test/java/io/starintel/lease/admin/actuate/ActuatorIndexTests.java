package io.starintel.lease.admin.actuate;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static io.starintel.lease.admin.actuate.ActuatorTestSupport.OPS;
import static io.starintel.lease.admin.actuate.ActuatorTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 33: exposed ({@code management.endpoints.web.exposure.include=health,targetleases}, the test
 * application.properties), the endpoint is listed in the actuator index with its operations' links.
 */
@SpringBootTest(classes = ActuatorTestSupport.UserApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ActuatorIndexTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		ActuatorTestSupport.properties(registry);
	}

	@LocalServerPort
	int port;

	@Test
	void whenExposedThenTheEndpointIsInTheActuatorIndex() {
		HttpResponse<String> index = get(this.port, "/actuator", OPS, "index-1");
		assertThat(index.statusCode()).as(index.body()).isEqualTo(200);
		JsonNode links = JsonMapper.builder().build().readTree(index.body()).path("_links");
		assertThat(links.path("targetleases").path("href").asString()).endsWith("/actuator/targetleases");
		assertThat(links.path("targetleases-path").path("href").asString())
			.endsWith("/actuator/targetleases/{*path}");
	}

}
