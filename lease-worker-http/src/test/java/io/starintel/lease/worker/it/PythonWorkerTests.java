package io.starintel.lease.worker.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two Python workers ({@code clients/python/lease_worker.py}, standard library only) against the running worker API
 * and real Redis: they race on the same targets, renew past several TTLs, an administrator revokes one lease of each
 * (the store's revoke, as the admin endpoint does), the retry of its last renewal (same request_id) is the server's
 * replay with current_state revoked and not ok for the client (lease_lost), the worker is then refused at renew and at
 * authorize-commit, and its reacquire gets a higher token. The transcripts are written to
 * {@code target/python-worker-*.log}.
 */
@SpringBootTest(classes = WorkerTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.worker-http.admission.burst=100000",
				"starintel.lease.worker-http.admission.permits-per-second=100000" })
class PythonWorkerTests {

	static String program;

	@DynamicPropertySource
	static void credentials(DynamicPropertyRegistry registry) {
		program = WorkerTestApplication.register(registry);
	}

	static final Path SCRIPT = Path.of("..", "clients", "python", "lease_worker.py").toAbsolutePath().normalize();

	@LocalServerPort
	int port;

	@Autowired
	LeaseService service;

	/** The output of one worker process, and what the test answered it. */
	final class Worker {

		final String name;

		final Process process;

		final List<String> lines = new CopyOnWriteArrayList<>();

		final List<JsonNode> events = new CopyOnWriteArrayList<>();

		final Map<String, JsonNode> acquired = new ConcurrentHashMap<>();

		final CompletableFuture<Integer> exit;

		Worker(String name, String credentialId, String secret, List<String> targets) throws IOException {
			this.name = name;
			ProcessBuilder builder = new ProcessBuilder("python3", SCRIPT.toString(), "race", "--base-url",
					"http://127.0.0.1:" + PythonWorkerTests.this.port, "--credential-id", credentialId, "--instance",
					"inst-" + name, "--name", name, "--targets", String.join(",", targets), "--ttl-ms", "2000",
					"--renew-every-ms", "200", "--renewals", "35", "--renew-ttl-ms", "3000");
			builder.environment().put("LEASE_WORKER_SECRET", secret);
			builder.redirectErrorStream(true);
			this.process = builder.start();
			this.exit = CompletableFuture.supplyAsync(this::readUntilExit);
		}

		private int readUntilExit() {
			try (BufferedReader out = new BufferedReader(
					new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = out.readLine()) != null) {
					this.lines.add(line);
					if (line.startsWith("EVENT ")) {
						JsonNode event = WorkerHttp.JSON.readTree(line.substring(6));
						this.events.add(event);
						on(event);
					}
				}
				return this.process.waitFor();
			}
			catch (IOException ex) {
				this.lines.add("reader failed: " + ex.getClass().getSimpleName());
				return -1;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return -1;
			}
		}

		/** The administrator's side: revoke one held lease when the worker is ready, then tell it. */
		private void on(JsonNode event) throws IOException {
			String kind = event.path("kind").asString();
			if ("acquired".equals(kind)) {
				this.acquired.put(event.path("target").asString(), event);
			}
			if ("ready".equals(kind)) {
				String answer = "none";
				if (!this.acquired.isEmpty()) {
					String target = this.acquired.keySet().stream().sorted().findFirst().orElseThrow();
					JsonNode lease = this.acquired.get(target);
					LeaseResult revoked = PythonWorkerTests.this.service
						.revoke(new AdminRequest(Operation.REVOKE, identity(target), "req-" + UUID.randomUUID(),
								Instant.now().plusSeconds(10), lease.path("lease_id").asString(),
								lease.path("token").asLong(), "prn_admin_ops", "key_admin_ops",
								"incident-python-race"));
					this.lines.add("[test] administrator revoke " + target + " -> " + revoked.code().wireName());
					answer = (revoked.code() == ResultCode.LEASE_REVOKED) ? "revoked " + target : "none";
				}
				OutputStream in = this.process.getOutputStream();
				in.write((answer + "\n").getBytes(StandardCharsets.UTF_8));
				in.flush();
			}
		}

		List<JsonNode> events(String kind) {
			return this.events.stream().filter((e) -> kind.equals(e.path("kind").asString())).toList();
		}

	}

	static LockIdentity identity(String target) {
		return LockIdentity.of(WorkerTestApplication.TENANT, program, "starintel-target", target, "usernamegen",
				"default", "default");
	}

	@Test
	void twoPythonWorkersRaceRenewGetRevokedAreRefusedAndReacquireWithAHigherToken() throws Exception {
		assertThat(Files.isRegularFile(SCRIPT)).as(SCRIPT.toString()).isTrue();
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<String> targets = List.of("py-" + run + "-1", "py-" + run + "-2", "py-" + run + "-3", "py-" + run + "-4");
		List<String> reversed = new ArrayList<>(targets);
		Collections.reverse(reversed);
		Worker a = new Worker("worker-a", "key_worker_a", WorkerTestApplication.SECRET_A, targets);
		Worker b = new Worker("worker-b", "key_worker_b", WorkerTestApplication.SECRET_B, reversed);
		int exitA;
		int exitB;
		try {
			exitA = a.exit.get(3, TimeUnit.MINUTES);
			exitB = b.exit.get(3, TimeUnit.MINUTES);
		}
		finally {
			a.process.destroyForcibly();
			b.process.destroyForcibly();
			Files.createDirectories(Path.of("target"));
			Files.write(Path.of("target", "python-worker-a.log"), a.lines);
			Files.write(Path.of("target", "python-worker-b.log"), b.lines);
		}
		String transcript = String.join("\n", a.lines) + "\n" + String.join("\n", b.lines);
		assertThat(exitA).as(transcript).isZero();
		assertThat(exitB).as(transcript).isZero();
		// the race: every target has exactly one winner, and the other worker was refused with lease_conflict
		Set<String> wonByA = new HashSet<>(a.acquired.keySet());
		Set<String> wonByB = new HashSet<>(b.acquired.keySet());
		assertThat(Collections.disjoint(wonByA, wonByB)).as(transcript).isTrue();
		Set<String> union = new HashSet<>(wonByA);
		union.addAll(wonByB);
		assertThat(union).containsExactlyInAnyOrderElementsOf(targets);
		Map<String, String> refusals = new HashMap<>();
		for (Worker w : List.of(a, b)) {
			for (JsonNode refused : w.events("refused")) {
				refusals.put(w.name + "/" + refused.path("target").asString(), refused.path("code").asString());
			}
		}
		assertThat(refusals).hasSize(targets.size()).allSatisfy((k, code) -> assertThat(code).isEqualTo("lease_conflict"));
		// renewed past several TTLs (2000 ms)
		for (Worker w : List.of(a, b)) {
			assertThat(w.events("ready").get(0).path("held_ms").asLong()).isGreaterThan(3 * 2000);
			assertThat(w.events("done").get(0).path("failures").isEmpty()).as(transcript).isTrue();
		}
		// the first renewal asked for a new TTL (3000 ms): the server recorded it and expiry follows it
		for (Worker w : List.of(a, b)) {
			assertThat(w.events("renewed_with_ttl")).as(transcript).hasSize(w.acquired.size());
			for (JsonNode renewed : w.events("renewed_with_ttl")) {
				assertThat(renewed.path("ttl_ms").asLong()).isEqualTo(3000);
				assertThat(Instant.parse(renewed.path("expires_at").asString()))
					.isEqualTo(Instant.parse(renewed.path("renewed_at").asString()).plusMillis(3000));
			}
		}
		// each worker that held something was revoked, refused, and reacquired with a higher token
		for (Worker w : List.of(a, b)) {
			if (!w.acquired.isEmpty()) {
				JsonNode reacquired = w.events("reacquired").get(0);
				assertThat(reacquired.path("new_token").asLong()).isGreaterThan(reacquired.path("old_token").asLong());
				assertThat(String.join("\n", w.lines)).contains("renew " + reacquired.path("target").asString()
						+ " -> 409 lease_lost").contains("-> 409 lease_lost");
				// the retry of its last renewal (same request_id) is the server's replay of lease_renewed with
				// current_state revoked, which the client reports as lease_lost, not ok
				JsonNode replay = w.events("renewal_replayed_after_revoke").get(0);
				assertThat(replay.path("target").asString()).isEqualTo(reacquired.path("target").asString());
				assertThat(replay.path("server_code").asString()).as(transcript).isEqualTo("lease_renewed");
				assertThat(replay.path("replayed").asBoolean()).as(transcript).isTrue();
				assertThat(replay.path("current_state").asString()).as(transcript).isEqualTo("revoked");
				assertThat(replay.path("code").asString()).as(transcript).isEqualTo("lease_lost");
				assertThat(replay.path("ok").asBoolean()).as(transcript).isFalse();
			}
		}
		// nothing is left active
		for (String target : targets) {
			assertThat(inspect(identity(target)).code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		}
	}

	private LeaseResult inspect(LockIdentity identity) {
		return this.service.inspect(InspectRequest.byIdentity(identity, this.service.newId(), this.service.deadline()));
	}

}
