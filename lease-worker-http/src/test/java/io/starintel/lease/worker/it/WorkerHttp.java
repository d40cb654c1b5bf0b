package io.starintel.lease.worker.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small HTTP client of the worker API on the test's random port (JDK HttpClient).
 */
final class WorkerHttp {

	static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final String base;

	private final int port;

	WorkerHttp(int port) {
		this.base = "http://127.0.0.1:" + port;
		this.port = port;
	}

	int port() {
		return this.port;
	}

	Reply send(HttpRequest request) {
		try {
			HttpResponse<String> response = this.client.send(request, HttpResponse.BodyHandlers.ofString());
			return new Reply(response.statusCode(), response.body(), response.headers().map());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static String basic(String user, String secret) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":" + secret).getBytes(StandardCharsets.UTF_8));
	}

	record Reply(int status, String body, Map<String, List<String>> headers) {

		JsonNode json() {
			return JSON.readTree(this.body);
		}

		String code() {
			return json().path("code").asString("");
		}

	}

	Reply post(String path, String body, String authorization) {
		return send("POST", path, body, authorization, "application/json", Map.of());
	}

	Reply send(String method, String path, String body, String authorization, String contentType,
			Map<String, String> headers) {
		HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(Duration.ofSeconds(30))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body)
					: HttpRequest.BodyPublishers.noBody());
		if (authorization != null) {
			builder.header("Authorization", authorization);
		}
		if (contentType != null) {
			builder.header("Content-Type", contentType);
		}
		headers.forEach(builder::header);
		try {
			HttpResponse<String> response = this.client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
			return new Reply(response.statusCode(), response.body(), response.headers().map());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
