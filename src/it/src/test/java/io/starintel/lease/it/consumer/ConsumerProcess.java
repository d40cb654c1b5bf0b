package io.starintel.lease.it.consumer;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** One JVM running the consumer application's jar, and a small HTTP client for it. */
final class ConsumerProcess implements AutoCloseable {

	static final JsonMapper JSON = JsonMapper.builder().build();

	private final String name;

	private final Process process;

	private final int port;

	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private ConsumerProcess(String name, Process process, int port) {
		this.name = name;
		this.process = process;
		this.port = port;
	}

	static ConsumerProcess start(String name, Path jar, int port, Map<String, String> environment, Path log)
			throws IOException {
		String java = ProcessHandle.current().info().command().orElse("java");
		List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
				jar.toString(), "--server.port=" + port));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
		builder.environment().putAll(environment);
		builder.directory(new File(System.getProperty("java.io.tmpdir")));
		return new ConsumerProcess(name, builder.start(), port);
	}

	String name() {
		return this.name;
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/** {@code GET path}; status and JSON body, or status -1 when the process does not answer. */
	Reply get(String path, String authorization) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
		return send(request, authorization);
	}

	Reply post(String path, String body, String authorization) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
			.POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
			.header("Content-Type", "application/json");
		return send(request, authorization);
	}

	JsonNode state() {
		Reply reply = get("/demo/state", null);
		return (reply.status() == 200) ? reply.json() : JSON.createObjectNode();
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	private Reply send(HttpRequest.Builder request, String authorization) {
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		request.timeout(Duration.ofSeconds(20));
		try {
			HttpResponse<String> response = this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
			return new Reply(response.statusCode(), response.body());
		}
		catch (IOException ex) {
			return new Reply(-1, "");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Reply(-1, "");
		}
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
	}

	record Reply(int status, String body) {

		JsonNode json() {
			return JSON.readTree(this.body);
		}

	}

}
