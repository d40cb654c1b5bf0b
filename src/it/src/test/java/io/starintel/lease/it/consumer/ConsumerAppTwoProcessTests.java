package io.starintel.lease.it.consumer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import io.starintel.lease.test.ServiceEnvironment;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.test.TestServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10, the starter as users assemble it: {@code src/it/consumer-app} (a separate Maven project that depends on
 * the installed {@code lease-spring-boot-starter} and {@code lease-admin-actuator} artifacts and declares no lease
 * bean) is built and started as two JVMs against the real Redis (each through its own TCP proxy), RabbitMQ and
 * pouchdb-server, with the default audit sinks on (log, application events, the admin module's Redis stream).
 *
 * <p>Runs when {@code -Dconsumer.it=true} ({@code scripts/test.sh} passes it to {@code mvnw install}, so the lease
 * artifacts are installed before this module's tests): it needs the artifacts in the build's local repository. The
 * consumer app is built on the Spring Boot line of the running build ({@code -Pspring-boot-4.1}: Boot 4.1 with the
 * artifacts the Boot 4.0 build installed, as a user on Boot 4.1 gets them), and its jar must carry that Boot.
 */
@EnabledIfSystemProperty(named = "consumer.it", matches = "true")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerAppTwoProcessTests {

	private static final String TENANT = "tenant-consumer";

	private static final String PROGRAM = "consumer-" + UUID.randomUUID().toString().substring(0, 8);

	private static final String PASSWORD = "pw-" + UUID.randomUUID();

	private static final String ADMIN = "Basic "
			+ Base64.getEncoder().encodeToString(("cred-consumer-admin:" + PASSWORD).getBytes());

	private static FaultProxy proxyA;

	private static FaultProxy proxyB;

	private static ConsumerProcess a;

	private static ConsumerProcess b;

	@BeforeAll
	static void buildAndStart() throws Exception {
		Path root = Paths.get(System.getProperty("lease.root", "../..")).toAbsolutePath().normalize();
		Path app = root.resolve("src/it/consumer-app");
		Path jar = build(root, app);
		URI redisUrl = TestServers.redisUri();
		InetSocketAddress redis = new InetSocketAddress(redisUrl.getHost(),
				(redisUrl.getPort() > 0) ? redisUrl.getPort() : 6379);
		proxyA = new FaultProxy(redis);
		proxyB = new FaultProxy(redis);
		String hash = "{bcrypt}" + new BCryptPasswordEncoder(4).encode(PASSWORD);
		Path logs = app.resolve("target");
		a = ConsumerProcess.start("A", jar, freePort(), environment("instance-a", proxyA.port(), hash), logs.resolve("consumer-a.log"));
		b = ConsumerProcess.start("B", jar, freePort(), environment("instance-b", proxyB.port(), hash), logs.resolve("consumer-b.log"));
		for (ConsumerProcess process : List.of(a, b)) {
			await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1)).until(() -> {
				assertThat(process.isAlive()).as("process " + process.name() + " exited; see its log").isTrue();
				return process.get("/demo/state", null).status() == 200;
			});
		}
	}

	@AfterAll
	static void stop() throws Exception {
		for (AutoCloseable closeable : new AutoCloseable[] { a, b, proxyA, proxyB }) {
			if (closeable != null) {
				closeable.close();
			}
		}
	}

	private static Map<String, String> environment(String instance, int redisPort, String hash) {
		Map<String, String> env = new HashMap<>();
		env.put(ServiceEnvironment.REDIS_URL, "redis://127.0.0.1:" + redisPort);
		env.put(ServiceEnvironment.RABBIT_HOST, TestServers.rabbitHost());
		env.put(ServiceEnvironment.RABBIT_PORT, Integer.toString(TestServers.rabbitPort()));
		env.put(ServiceEnvironment.COUCHDB_URL, TestServers.pouchDbUrl());
		env.put("CONSUMER_PROGRAM", PROGRAM);
		env.put("CONSUMER_INSTANCE", instance);
		env.put("CONSUMER_QUEUE", "consumer.results." + PROGRAM);
		env.put("CONSUMER_DATABASE", PROGRAM);
		env.put("CONSUMER_ADMIN_HASH", hash);
		return env;
	}

	/**
	 * Builds the consumer app with the same local repository as this build (where the lease artifacts are), running
	 * its own test suite on the way (lease-spring-boot-starter-test: in-memory, and Testcontainers where a Docker
	 * engine answers), and prints that suite's counts.
	 */
	private static Path build(Path root, Path app) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of(root.resolve("mvnw").toString(), "-B", "-f",
				app.resolve("pom.xml").toString(), "package"));
		for (String property : List.of("maven.repo.local", "maven.repo.local.tail", "spring-boot.version")) {
			buildProperty(property).ifPresent((value) -> command.add("-D" + property + "=" + value));
		}
		// a fresh target: the Boot plugin does not repackage a jar left by an earlier build (e.g. the other Boot line's)
		FileSystemUtils.deleteRecursively(app.resolve("target"));
		Files.createDirectories(app.resolve("target"));
		Process process = new ProcessBuilder(command).directory(app.toFile())
			.redirectErrorStream(true)
			.redirectOutput(app.resolve("target/consumer-build.log").toFile())
			.start();
		assertThat(process.waitFor(10, TimeUnit.MINUTES)).as("consumer-app build finished").isTrue();
		List<String> suite = Files.readAllLines(app.resolve("target/consumer-build.log")).stream()
			.filter((line) -> line.contains("Tests run:") || line.startsWith("SKIPPED "))
			.toList();
		suite.forEach((line) -> System.out.println("consumer-app suite: " + line));
		assertThat(process.exitValue()).as("consumer-app build and test suite (see target/consumer-build.log)").isZero();
		assertThat(suite).as("the consumer app's own test suite ran").isNotEmpty();
		Path jar = app.resolve("target/consumer-app.jar");
		Optional<String> line = buildProperty("spring-boot.version");
		if (line.isPresent()) {
			String boot = line.get();
			try (JarFile built = new JarFile(jar.toFile())) {
				assertThat(built.getEntry("BOOT-INF/lib/spring-boot-" + boot + ".jar"))
					.as("the consumer app runs on the build's Spring Boot " + boot).isNotNull();
			}
			System.out.println("consumer-app built on Spring Boot " + boot);
		}
		return jar;
	}

	/** A property of this build that the pom passes as {@code lease.<name>}, when set (not an unresolved placeholder). */
	private static Optional<String> buildProperty(String name) {
		String value = System.getProperty("lease." + name);
		return (value != null && !value.isBlank() && !value.startsWith("${")) ? Optional.of(value) : Optional.empty();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static JsonNode awaitState(ConsumerProcess process, String field, Duration atMost) {
		await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> process.state().has(field));
		return process.state();
	}

	private static String scope() {
		return "tenant_id=" + TENANT + "&program_id=" + PROGRAM;
	}

	@Test
	@Order(1)
	void oneProcessWorksTheTargetAdminRevokesItsJobIsCancelledAndFencedAndTheOtherTakesOver() {
		String target = "t-revoke";
		assertThat(a.post("/demo/run?target=" + target, "", null).status()).isEqualTo(200);
		assertThat(b.post("/demo/run?target=" + target, "", null).status()).isEqualTo(200);
		// exactly one process works on the target: the other's job is skipped
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			JsonNode sa = a.state();
			JsonNode sb = b.state();
			return (sa.has("started_at") && "skipped".equals(sb.path("result").asString(""))) 
					|| (sb.has("started_at") && "skipped".equals(sa.path("result").asString("")));
		});
		ConsumerProcess holder = a.state().has("started_at") ? a : b;
		ConsumerProcess other = (holder == a) ? b : a;
		JsonNode held = holder.state();
		assertThat(other.state().has("started_at")).isFalse();
		String leaseId = held.get("lease_id").asString();
		long token = Long.parseLong(held.get("fencing_token").asString());

		// the admin endpoint exists with the auto-configured store, lists and inspects (with the holder)
		ConsumerProcess.Reply list = other.get("/actuator/targetleases?" + scope(), ADMIN);
		assertThat(list.status()).as(list.body()).isEqualTo(200);
		JsonNode listed = list.json().get("leases");
		assertThat(listed).hasSize(1);
		JsonNode lease = listed.get(0);
		assertThat(lease.get("lease_id").asString()).isEqualTo(leaseId);
		assertThat(lease.get("holder").get("service_instance_id").asString())
			.isEqualTo((holder == a) ? "instance-a" : "instance-b");
		ConsumerProcess.Reply inspect = holder.get("/actuator/targetleases/" + leaseId + "?" + scope(), ADMIN);
		assertThat(inspect.status()).as(inspect.body()).isEqualTo(200);
		assertThat(inspect.json().get("code").asString()).isEqualTo("lease_inspected");

		// an administrator's revoke cancels the running job: LeaseLostEvent, interrupt; its later writes are fenced
		ObjectNode revoke = ConsumerProcess.JSON.createObjectNode();
		revoke.put("request_id", "req-" + UUID.randomUUID());
		revoke.set("lock_identity", lease.get("lock_identity"));
		revoke.put("lease_id", leaseId);
		revoke.put("fencing_token", token);
		revoke.put("reason", "consumer test revoke");
		ConsumerProcess.Reply revoked = other.post("/actuator/targetleases/revoke",
				ConsumerProcess.JSON.writeValueAsString(revoke), ADMIN);
		assertThat(revoked.status()).as(revoked.body()).isEqualTo(200);
		assertThat(revoked.json().get("code").asString()).isEqualTo("lease_revoked");
		JsonNode cancelled = awaitState(holder, "call_returned_at", Duration.ofSeconds(60));
		assertThat(cancelled.has("lost_at")).isTrue();
		assertThat(cancelled.has("interrupted_at")).isTrue();
		// the stale holder's writes are refused as stale (the revoked lease is no longer the active one), not by an
		// outage or a timeout, which would also be "not accepted"
		assertThat(cancelled.get("couchdb").asString()).isEqualTo("LEASE_LOST/STALE_LEASE");
		assertThat(cancelled.get("rabbitmq").asString()).isEqualTo("LEASE_LOST/STALE_LEASE");
		System.out.printf("consumer revoke: holder=%s token=%d lost_at=%s interrupted_at=%s couchdb=%s rabbitmq=%s%n",
				holder.name(), token, cancelled.get("lost_at").asString(), cancelled.get("interrupted_at").asString(),
				cancelled.get("couchdb").asString(), cancelled.get("rabbitmq").asString());

		// the other process then takes the target with a higher token, and its fenced writes are accepted
		assertThat(other.post("/demo/run?target=" + target, "", null).status()).isEqualTo(200);
		JsonNode successor = awaitState(other, "started_at", Duration.ofSeconds(60));
		assertThat(Long.parseLong(successor.get("fencing_token").asString())).isGreaterThan(token);
		other.post("/demo/finish", "", null);
		JsonNode finished = awaitState(other, "call_returned_at", Duration.ofSeconds(60));
		assertThat(finished.get("couchdb").asString()).startsWith("ACCEPTED");
		assertThat(finished.get("rabbitmq").asString()).startsWith("ACCEPTED");
	}

	@Test
	@Order(2)
	void redisGoingSilentMidJobCancelsItBeforeExpiryAndReleaseEndsWithinItsDeadline() {
		String target = "t-partition";
		assertThat(a.post("/demo/run?target=" + target, "", null).status()).isEqualTo(200);
		JsonNode started = awaitState(a, "started_at", Duration.ofSeconds(60));
		assertThat(started.has("lease_id")).isTrue();
		// let at least one renewal pass with the stream sink writing routine events
		Instant firstExpiry = Instant.parse(started.get("first_expires_at").asString());
		await().atMost(Duration.ofSeconds(30))
			.until(() -> Instant.parse(a.state().get("expires_at").asString()).isAfter(firstExpiry));
		Instant silentAt = Instant.now();
		proxyA.dropReplies(true);
		JsonNode lost = awaitState(a, "lost_at", Duration.ofSeconds(60));
		Instant lostAt = Instant.parse(lost.get("lost_at").asString());
		Instant expiresAt = Instant.parse(lost.get("expires_at_when_lost").asString());
		JsonNode done = awaitState(a, "call_returned_at", Duration.ofSeconds(60));
		Duration release = Duration.between(Instant.parse(done.get("job_returned_at").asString()),
				Instant.parse(done.get("call_returned_at").asString()));
		System.out.printf("consumer partition: silence->LeaseLostEvent %d ms, lease remaining at loss %d ms "
				+ "(expires_at %s), interrupted=%s, release took %d ms (deadline 5000 ms)%n",
				Duration.between(silentAt, lostAt).toMillis(), Duration.between(lostAt, expiresAt).toMillis(),
				expiresAt, done.has("interrupted_at"), release.toMillis());
		assertThat(lostAt).isBefore(expiresAt);
		assertThat(done.has("interrupted_at")).isTrue();
		// starintel.lease.request.timeout (the release's deadline) is 5s; 1s for the JVM's scheduling on a loaded host
		assertThat(release).isLessThanOrEqualTo(Duration.ofSeconds(6));
	}

}
