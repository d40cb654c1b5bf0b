package io.starintel.lease.admin.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A tiny real-HTTP client for the admin endpoint (JDK HttpClient, HTTP Basic).
 */
final class AdminHttp {

	static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final String base;

	private final Duration requestTimeout;

	AdminHttp(int port) {
		this(port, Duration.ofSeconds(10));
	}

	/** A client whose requests give up after {@code requestTimeout} (a test that measures a slow answer). */
	AdminHttp(int port, Duration requestTimeout) {
		this.base = "http://127.0.0.1:" + port + "/actuator/targetleases";
		this.requestTimeout = requestTimeout;
	}

	record Reply(int status, String body, HttpHeaders headers) {

		JsonNode json() {
			return JSON.readTree(this.body);
		}

		String code() {
			return json().get("code").asString();
		}

	}

	static String basic(String user, String password) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
	}

	Reply get(String pathAndQuery, String authorization) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + pathAndQuery)).GET();
		return send(request, authorization);
	}

	Reply getWithCorrelation(String pathAndQuery, String authorization, String correlationId) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + pathAndQuery))
			.GET()
			.header("X-Correlation-Id", correlationId);
		return send(request, authorization);
	}

	Reply post(String path, String body, String authorization) {
		return post(path, body, authorization, "application/json");
	}

	Reply post(String path, String body, String authorization, String contentType) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path))
			.POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
		if (contentType != null) {
			request.header("Content-Type", contentType);
		}
		return send(request, authorization);
	}

	Reply method(String method, String path, String authorization) {
		return send(HttpRequest.newBuilder(URI.create(this.base + path))
			.method(method, HttpRequest.BodyPublishers.noBody()), authorization);
	}

	private Reply send(HttpRequest.Builder request, String authorization) {
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		request.timeout(this.requestTimeout);
		try {
			HttpResponse<String> response = this.client.send(request.build(),
					HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
			return new Reply(response.statusCode(), response.body(), response.headers());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
