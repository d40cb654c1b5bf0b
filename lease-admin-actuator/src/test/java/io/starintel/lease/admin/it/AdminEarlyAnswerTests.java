package io.starintel.lease.admin.it;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.test.RawHttp;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin endpoint on a real Tomcat with 4 request threads: Spring Security's 401 to clients that declare a body
 * and stall closes their connections and holds no thread (docs/worker-api.md, "Request bodies"), so an administrator
 * is still answered at once; and a repeated {@code Authorization} header authenticates no one.
 */
@SpringBootTest(classes = AdminTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "server.tomcat.threads.max=4", "server.tomcat.threads.min-spare=1" })
@Import(AdminEarlyAnswerTests.MemoryStore.class)
class AdminEarlyAnswerTests {

	static final String PROGRAM = "p-" + UUID.randomUUID().toString().substring(0, 8);

	static final String PASSWORD = "pw-admin-" + UUID.randomUUID();

	static final String ADMIN = AdminHttp.basic("cred-admin-early", PASSWORD);

	static final int STALLED = 8;

	@TestConfiguration(proxyBeanMethods = false)
	static class MemoryStore {

		@Bean
		LeaseStore leaseStore() {
			return new InMemoryLeaseStore();
		}

	}

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		String p = "starintel.lease.admin.credentials[0].";
		registry.add(p + "principal", () -> "admin-early");
		registry.add(p + "credential-id", () -> "cred-admin-early");
		registry.add(p + "secret-hash", () -> "{bcrypt}" + new BCryptPasswordEncoder(4).encode(PASSWORD));
		registry.add(p + "kind", () -> "administrator");
		registry.add(p + "capabilities", () -> "targets:read,targets:force-release,targets:revoke");
		registry.add(p + "tenant", () -> "tenant-a");
		registry.add(p + "programs", () -> PROGRAM);
	}

	@LocalServerPort
	int port;

	@Test
	void stalledUnauthenticatedBodiesHoldNoThread() throws Exception {
		List<Socket> stalled = new ArrayList<>();
		try {
			for (int i = 0; i < STALLED; i++) {
				Socket socket = new Socket("127.0.0.1", this.port);
				socket.setSoTimeout(30_000);
				OutputStream out = socket.getOutputStream();
				out.write(("POST /actuator/targetleases/inspect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
						+ "\r\nContent-Length: 100000\r\n\r\n{\"a\":").getBytes(StandardCharsets.ISO_8859_1));
				out.flush();
				stalled.add(socket);
			}
			for (Socket socket : stalled) {
				String head = RawHttp.head(socket.getInputStream());
				assertThat(head).as(head).startsWith("http/1.1 401").contains("connection: close");
			}
			HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
			long start = System.nanoTime();
			HttpResponse<String> reply = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port
					+ "/actuator/targetleases?tenant_id=tenant-a&program_id=" + PROGRAM))
				.timeout(Duration.ofSeconds(5))
				.header("Authorization", ADMIN)
				.GET()
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
		finally {
			for (Socket socket : stalled) {
				socket.close();
			}
		}
	}

	@Test
	void aRepeatedAuthorizationHeaderIsRefusedInEitherOrder() throws IOException {
		String invalid = AdminHttp.basic("cred-admin-early", "wrong");
		String query = "/actuator/targetleases?tenant_id=tenant-a&program_id=" + PROGRAM;
		assertThat(get(query, "Authorization: " + ADMIN + "\r\nAuthorization: " + invalid + "\r\n"))
			.startsWith("http/1.1 401").contains("\"code\":\"invalid_credential\"");
		assertThat(get(query, "Authorization: " + invalid + "\r\nAuthorization: " + ADMIN + "\r\n"))
			.startsWith("http/1.1 401").contains("\"code\":\"invalid_credential\"");
		assertThat(get(query, "Authorization: " + ADMIN + "\r\n")).as("once: authenticated").startsWith("http/1.1 200");
	}

	private String get(String pathAndQuery, String headers) throws IOException {
		return RawHttp.exchange(this.port, "GET " + pathAndQuery + " HTTP/1.1\r\nHost: x\r\n" + headers, new byte[0]);
	}

}
