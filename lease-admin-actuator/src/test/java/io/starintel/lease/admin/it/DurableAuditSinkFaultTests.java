package io.starintel.lease.admin.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.test.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The durable audit sink as auto-configured ({@link RedisStreamAuditSink}) and the Redis store, both reaching Redis
 * through a {@link FaultProxy}, with a command timeout ({@code spring.data.redis.timeout}) of 20 s, far beyond the
 * requests' deadlines:
 * <ul>
 * <li>a backend that does not answer holds an admin request no longer than its deadline: the synchronous audit of its
 * store call waits at most the time left to that deadline (before, the sink waited the full command timeout after
 * the store had given up, and the request answered 21 s after its start);</li>
 * <li>after replies were lost on the sink's connection (the proxy dropped them, then passed again without cutting
 * anything), the sink's next write is confirmed at once: the connection that lost a reply is retired (before, every
 * later reply answered the command before it, and every write failed at the command timeout).</li>
 * </ul>
 * Redis is {@link TestServers#redisUri()} (a container or the local server).
 */
@SpringBootTest(classes = DurableAuditSinkFaultTests.App.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.data.redis.timeout=20s", "starintel.lease.admin.admission.burst=100000",
				"starintel.lease.admin.admission.permits-per-second=100000" })
class DurableAuditSinkFaultTests {

	static final String PASSWORD = "pw-" + UUID.randomUUID();

	static final String ADMIN = AdminHttp.basic("cred-admin-faults", PASSWORD);

	static final String TENANT = "tenant-sink-faults";

	static final String PROGRAM = "p-" + UUID.randomUUID().toString().substring(0, 8);

	static final ProgramScope SCOPE = ProgramScope.of(TENANT, PROGRAM);

	/** Far below the command timeout (20 s), far above the deadline (1 s) on a loaded machine. */
	static final Duration BY_THE_DEADLINE = Duration.ofSeconds(8);

	private static FaultProxy proxy;

	/** A connection to Redis that does not go through the proxy: what landed in the streams. */
	private static LettuceConnectionFactory direct;

	private static synchronized FaultProxy proxy() throws IOException {
		if (proxy == null) {
			URI redis = TestServers.redisUri();
			proxy = new FaultProxy(new InetSocketAddress(redis.getHost(), redis.getPort()));
		}
		return proxy;
	}

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) throws IOException {
		int port = proxy().port();
		registry.add("spring.data.redis.url", () -> "redis://127.0.0.1:" + port);
		String p = "starintel.lease.admin.credentials[0].";
		registry.add(p + "principal", () -> "admin-faults");
		registry.add(p + "credential-id", () -> "cred-admin-faults");
		registry.add(p + "secret-hash", () -> "{bcrypt}" + new BCryptPasswordEncoder(4).encode(PASSWORD));
		registry.add(p + "kind", () -> "administrator");
		registry.add(p + "capabilities", () -> "targets:read,targets:force-release,targets:revoke");
		registry.add(p + "tenant", () -> TENANT);
		registry.add(p + "programs", () -> PROGRAM);
	}

	/** The admin endpoint's application, on the Redis store; no container connection (Redis is behind the proxy). */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		LeaseStore leaseStore(RedisConnectionFactory connectionFactory) {
			return new RedisLeaseStore(connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG);
		}

	}

	@BeforeAll
	static void connectDirectly() {
		URI redis = TestServers.redisUri();
		direct = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.getHost(), redis.getPort()));
		direct.afterPropertiesSet();
	}

	@AfterAll
	static void close() throws IOException {
		if (direct != null) {
			new StringRedisTemplate(direct).delete(List.of(RedisStreamAuditSink.streamKey(SCOPE),
					RedisStreamAuditSink.routineStreamKey(SCOPE)));
			direct.destroy();
		}
		if (proxy != null) {
			proxy.close();
		}
	}

	@LocalServerPort
	int port;

	@Autowired
	RedisStreamAuditSink sink;

	@Test
	void aBackendThatDoesNotAnswerHoldsAnAdminRequestNoLongerThanItsDeadline() throws IOException {
		AdminHttp http = new AdminHttp(this.port, Duration.ofSeconds(60));
		// the store's and the sink's connections are open: the list's event is written on the sink's own connection
		AdminHttp.Reply warmUp = http.get(listQuery(Instant.now().plusSeconds(5)), ADMIN);
		assertThat(warmUp.status()).as(warmUp.body()).isEqualTo(200);
		proxy().pause(true);
		try {
			long started = System.nanoTime();
			AdminHttp.Reply list = http.get(listQuery(Instant.now().plusSeconds(1)), ADMIN);
			Duration listTook = Duration.ofNanos(System.nanoTime() - started);
			started = System.nanoTime();
			AdminHttp.Reply revoke = http.post("/revoke", revokeBody(Instant.now().plusSeconds(1)), ADMIN);
			Duration revokeTook = Duration.ofNanos(System.nanoTime() - started);

			assertThat(list.status()).as(list.body()).isEqualTo(503);
			assertThat(list.code()).isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE.wireName());
			assertThat(listTook).as("a list with a 1 s deadline, command timeout 20 s: answered by its deadline")
				.isLessThan(BY_THE_DEADLINE);
			assertThat(revoke.status()).as(revoke.body()).isEqualTo(503);
			// outcome unknown when sent, backend unavailable when the store had no open connection to send it on
			assertThat(revoke.code()).isIn(ResultCode.LEASE_OUTCOME_UNKNOWN.wireName(),
					ResultCode.LEASE_BACKEND_UNAVAILABLE.wireName());
			assertThat(revokeTook).as("a revoke with a 1 s deadline, command timeout 20 s: answered by its deadline")
				.isLessThan(BY_THE_DEADLINE);
		}
		finally {
			proxy().pause(false);
		}
		// the backend answers again: so does the endpoint, with its audit
		AdminHttp.Reply after = http.get(listQuery(Instant.now().plusSeconds(5)), ADMIN);
		assertThat(after.status()).as(after.body()).isEqualTo(200);
	}

	@Test
	void afterRepliesWereLostTheSinksNextWriteIsConfirmedAtOnce() throws IOException {
		this.sink.recordAll(List.of(event("warm-up-" + UUID.randomUUID())));
		String lost = "lost-" + UUID.randomUUID();
		proxy().dropReplies(true);
		try {
			assertThatThrownBy(() -> this.sink.recordWithin(event(lost), Duration.ofSeconds(1)))
				.as("a write whose reply is lost is not confirmed")
				.isInstanceOf(AuditWriteException.class);
			// the entry landed all the same (at least once: the audit pipeline would send it again)
			await("the lost write reached Redis").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> correlationIds().contains(lost));
		}
		finally {
			proxy().dropReplies(false);
		}

		// replies pass again and nothing was cut: the next write on the same sink is confirmed at once
		String next = "next-" + UUID.randomUUID();
		long started = System.nanoTime();
		this.sink.recordAll(List.of(event(next)));
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(took).as("the write after the lost reply, command timeout 20 s").isLessThan(Duration.ofSeconds(5));
		assertThat(correlationIds()).contains(next);

		// and so is the synchronous audit of an admin request, once the store's own connections are usable again
		// (the store retires a connection that lost a reply at its call's deadline: until then a list may be 503)
		AdminHttp http = new AdminHttp(this.port, Duration.ofSeconds(60));
		AtomicReference<Duration> answered = new AtomicReference<>();
		await("an admin list answered 200").atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				long sent = System.nanoTime();
				int status = http.get(listQuery(Instant.now().plusSeconds(5)), ADMIN).status();
				answered.set(Duration.ofNanos(System.nanoTime() - sent));
				return status == 200;
			});
		assertThat(answered.get()).as("the admin list, with its audit, after the episode")
			.isLessThan(Duration.ofSeconds(5));
	}

	private static AuditEvent event(String correlationId) {
		Instant now = Instant.now();
		return new AuditEventBuilder(AuditEventType.LIST, ResultCode.LEASE_LISTED).time(now, now)
			.ids(null, correlationId)
			.scope(SCOPE)
			.build();
	}

	/** The correlation ids of the program's routine stream, read without the proxy. */
	private static List<String> correlationIds() {
		List<MapRecord<String, Object, Object>> entries = new StringRedisTemplate(direct).opsForStream()
			.range(RedisStreamAuditSink.routineStreamKey(SCOPE), Range.unbounded());
		return (entries != null) ? entries.stream()
			.map((entry) -> String.valueOf(entry.getValue().get("correlation_id")))
			.toList() : List.of();
	}

	private static String listQuery(Instant deadline) {
		return "?tenant_id=" + TENANT + "&program_id=" + PROGRAM + "&deadline_at=" + deadline;
	}

	private static String revokeBody(Instant deadline) {
		ObjectNode body = AdminHttp.JSON.createObjectNode();
		body.put("request_id", "req-" + UUID.randomUUID());
		ObjectNode identity = body.putObject("lock_identity");
		identity.put("tenant_id", TENANT);
		identity.put("program_id", PROGRAM);
		identity.put("target_namespace", "ns");
		identity.put("target_id", "t-1");
		identity.put("actor_name", "actor");
		identity.put("workflow_name", "default");
		body.put("lease_id", "lease_1");
		body.put("fencing_token", 42);
		body.put("reason", "backend paused");
		body.put("deadline_at", deadline.toString());
		return AbstractAdminEndpointTests.text(body);
	}

}
