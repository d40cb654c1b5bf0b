package io.starintel.lease.worker.it;

import java.io.IOException;
import java.io.InputStream;
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

import io.starintel.lease.test.RawHttp;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Answers given before the body was read, on a real Tomcat with 4 request threads: they close the connection and hold
 * no thread for the rest of the body (docs/worker-api.md, "Request bodies"), so clients that declare a body and stall
 * cannot starve the server; and a repeated {@code Authorization} header authenticates no one.
 */
@SpringBootTest(classes = WorkerTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "server.tomcat.threads.max=4", "server.tomcat.threads.min-spare=1",
				"starintel.lease.worker-http.admission.burst=100000",
				"starintel.lease.worker-http.admission.permits-per-second=100000" })
class WorkerEarlyAnswerTests {

	static final String A = WorkerHttp.basic("key_worker_a", WorkerTestApplication.SECRET_A);

	/** Twice Tomcat's request threads. */
	static final int STALLED = 8;

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		WorkerTestApplication.register(registry);
	}

	@LocalServerPort
	int port;

	@Test
	void stalledUnauthenticatedBodiesHoldNoThread() throws Exception {
		assertStalledClientsHoldNoThread("POST /lease/v1/leases/inspect HTTP/1.1\r\n", "", "application/json", "401");
	}

	@Test
	void stalledBodiesRefusedAfterAuthenticationHoldNoThread() throws Exception {
		// a query string and a wrong content type: 400 before the body is read
		assertStalledClientsHoldNoThread("POST /lease/v1/leases/inspect?x=1 HTTP/1.1\r\n", "Authorization: " + A + "\r\n",
				"text/plain", "400");
	}

	private void assertStalledClientsHoldNoThread(String requestLine, String authorization, String contentType,
			String status) throws Exception {
		List<Socket> stalled = new ArrayList<>();
		try {
			for (int i = 0; i < STALLED; i++) {
				Socket socket = new Socket("127.0.0.1", this.port);
				socket.setSoTimeout(30_000);
				OutputStream out = socket.getOutputStream();
				// 100000 bytes declared (under Tomcat's 2 MB swallow limit), 5 sent, then nothing
				out.write((requestLine + "Host: x\r\n" + authorization + "Content-Type: " + contentType
						+ "\r\nContent-Length: 100000\r\n\r\n{\"a\":").getBytes(StandardCharsets.ISO_8859_1));
				out.flush();
				stalled.add(socket);
			}
			for (Socket socket : stalled) {
				String head = RawHttp.head(socket.getInputStream());
				assertThat(head).as(head).startsWith("http/1.1 " + status).contains("connection: close");
			}
			// every thread would be swallowing a stalled body until the connector's timeout (60 s) without the fix
			HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
			long start = System.nanoTime();
			HttpResponse<String> reply = client.send(HttpRequest.newBuilder(
					URI.create("http://127.0.0.1:" + this.port + "/lease/v1/leases/inspect"))
				.timeout(Duration.ofSeconds(5))
				.header("Authorization", A)
				.header("Content-Type", "application/json")
				.header("X-Service-Instance-Id", "inst-1")
				.POST(HttpRequest.BodyPublishers.ofString("{\"lock_identity\":{\"target_namespace\":\"starintel-target\","
						+ "\"target_id\":\"t-early\",\"actor_name\":\"usernamegen\",\"workflow_name\":\"default\"}}"))
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(reply.statusCode()).as(reply.body()).isBetween(200, 499).isNotEqualTo(401);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
			// and the stalled connections are closed by the server, not kept to swallow their bodies
			for (Socket socket : stalled) {
				assertThat(drain(socket.getInputStream())).as("the server closed the stalled connection").isTrue();
			}
		}
		finally {
			for (Socket socket : stalled) {
				socket.close();
			}
		}
	}

	@Test
	void aRepeatedAuthorizationHeaderIsRefusedInEitherOrder() throws IOException {
		String invalid = WorkerHttp.basic("key_worker_a", "wrong");
		assertThat(inspect("Authorization: " + A + "\r\nAuthorization: " + invalid + "\r\n"))
			.startsWith("http/1.1 401").contains("\"code\":\"invalid_credential\"");
		assertThat(inspect("Authorization: " + invalid + "\r\nAuthorization: " + A + "\r\n"))
			.startsWith("http/1.1 401").contains("\"code\":\"invalid_credential\"");
		assertThat(inspect("Authorization: " + A + "\r\nAuthorization: " + A + "\r\n"))
			.as("the same credential twice is no less ambiguous a header")
			.startsWith("http/1.1 401");
		assertThat(inspect("Authorization: " + A + "\r\n")).as("once: authenticated").doesNotStartWith("http/1.1 401");
	}

	private String inspect(String headers) throws IOException {
		byte[] body = ("{\"lock_identity\":{\"target_namespace\":\"starintel-target\",\"target_id\":\"t-dup\","
				+ "\"actor_name\":\"usernamegen\",\"workflow_name\":\"default\"}}").getBytes(StandardCharsets.UTF_8);
		return RawHttp.exchange(this.port, "POST /lease/v1/leases/inspect HTTP/1.1\r\nHost: x\r\n" + headers
				+ "Content-Type: application/json\r\nX-Service-Instance-Id: inst-1\r\nContent-Length: " + body.length
				+ "\r\n", body);
	}

	/** Reads to the end of the stream: {@code true} when the server closed it (the socket's timeout otherwise). */
	private static boolean drain(InputStream in) {
		try {
			while (in.read() >= 0) {
				// the answer's body
			}
			return true;
		}
		catch (IOException ex) {
			return ex.getMessage() != null && ex.getMessage().contains("reset");
		}
	}

}
