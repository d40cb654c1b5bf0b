package io.starintel.lease.it.worker;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.OperationClasses;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.worker.internal.WorkerController;
import io.starintel.lease.worker.internal.WorkerCredentials;
import io.starintel.lease.http.Admission;
import io.starintel.lease.http.Credential;
import io.starintel.lease.worker.WorkerHttpProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

/**
 * The worker API's answer to a timeout after submission, against real Redis behind a proxy that forwards the
 * request and drops the reply: the acquire commits on the server, the worker answers 503
 * {@code lease_outcome_unknown} (retryable, with a retry hint), and a resolve by the same request id afterwards
 * returns the committed lease (on a second API instance: the proxied connection is left with the lost reply), as
 * does the retried acquire. The worker controller is the real one (its whole dispatch, on the lease service over the
 * audited Redis store), driven through MockMvc.
 */
class WorkerOutcomeUnknownTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final String SECRET = "secret-" + UUID.randomUUID();

	private static final String AUTH = "Basic "
			+ Base64.getEncoder().encodeToString(("key_worker_u:" + SECRET).getBytes(StandardCharsets.UTF_8));

	private static LettuceConnectionFactory direct;

	private final List<AuditEvent> events = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void connect() {
		direct = RedisServers.factory();
	}

	@AfterAll
	static void disconnect() {
		direct.destroy();
	}

	private MockMvc worker(LettuceConnectionFactory factory, String program) {
		RedisLeaseStore store = RedisServers.store(factory);
		AuditSink recording = this.events::add;
		LeaseService service = new LeaseService(
				new AuditingLeaseStore(store, List.of(recording), Clock.systemUTC(), store.writesAdminAuditAtomically()),
				store, Clock.systemUTC(), Duration.ofSeconds(5), null, null);
		Credential credential = new Credential("prn_worker_u", "key_worker_u", null,
				"{bcrypt}" + new BCryptPasswordEncoder(4).encode(SECRET), "worker", Set.of("targets:lease"),
				"tenant-worker-unknown", program, Set.of(), Set.of(), Set.of());
		WorkerHttpProperties properties = new WorkerHttpProperties(true, 8192, Duration.ofSeconds(5),
				Duration.ofHours(1), new Admission(16, 1000, 1000), List.of(credential));
		LeasePolicy policy = RedisServers.POLICY;
		WorkerController controller = WorkerController.create(service, new WorkerCredentials(List.of(credential)),
				policy, OperationClasses.defaults(), Duration.ofSeconds(10), properties, () -> List.of(recording));
		return MockMvcBuilders.standaloneSetup(controller).build();
	}

	private static ObjectNode acquireBody(String target, String requestId, Instant deadline) {
		ObjectNode body = JSON.createObjectNode();
		body.put("request_id", requestId);
		body.put("service_instance_id", "inst-u");
		body.put("deadline_at", deadline.toString());
		ObjectNode identity = body.putObject("lock_identity");
		identity.put("target_namespace", "starintel-target");
		identity.put("target_id", target);
		identity.put("actor_name", "usernamegen");
		identity.put("workflow_name", "default");
		body.put("ttl_ms", 60_000);
		body.put("execution_id", "exec-u");
		body.put("job_id", "job-u");
		body.put("trace_id", "trace-u");
		return body;
	}

	private record Reply(int status, JsonNode json) {
	}

	private static Reply send(MockMvc worker, String operation, ObjectNode body) throws Exception {
		MockHttpServletResponse response = worker
			.perform(post("/lease/v1/leases/" + operation).contentType("application/json")
				.header("Authorization", AUTH)
				.content(body.toString()))
			.andReturn()
			.getResponse();
		return new Reply(response.getStatus(), JSON.readTree(response.getContentAsString(StandardCharsets.UTF_8)));
	}

	@Test
	void aLostReplyIsOutcomeUnknown503AndResolveReturnsTheCommittedLease() throws Exception {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		URI uri = RedisServers.uri();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			LettuceConnectionFactory proxied = RedisServers.factory("127.0.0.1", proxy.port());
			try {
				MockMvc throughProxy = worker(proxied, program);
				MockMvc replica = worker(direct, program);
				// warm-up through the proxy while it forwards replies (the library is loaded on the server)
				Reply warm = send(throughProxy, "acquire", acquireBody("warm-" + UUID.randomUUID(),
						"req-" + UUID.randomUUID(), Instant.now().plusSeconds(5)));
				assertThat(warm.status()).as(warm.json().toString()).isEqualTo(200);

				proxy.dropReplies(true);
				long sentBefore = proxy.forwardedRequestBytes();
				long droppedBefore = proxy.droppedReplyBytes();
				String target = "t-" + UUID.randomUUID();
				String requestId = "req-" + UUID.randomUUID();
				this.events.clear();
				Reply unknown = send(throughProxy, "acquire", acquireBody(target, requestId,
						Instant.now().plusMillis(700)));
				assertThat(unknown.status()).as(unknown.json().toString()).isEqualTo(503);
				assertThat(unknown.json().path("code").asString()).isEqualTo("lease_outcome_unknown");
				assertThat(unknown.json().path("retryable").asBoolean()).isTrue();
				assertThat(unknown.json().path("retry_after_ms").asLong()).isPositive();
				assertThat(unknown.json().has("lease")).isFalse();
				assertThat(proxy.forwardedRequestBytes()).as("the request was submitted").isGreaterThan(sentBefore);
				await("the server answered the command whose reply was dropped").atMost(Duration.ofSeconds(30))
					.pollInterval(Duration.ofMillis(10))
					.until(() -> proxy.droppedReplyBytes() > droppedBefore);
				// one audit event for the request, outcome unknown
				List<String> audited = new ArrayList<>();
				for (AuditEvent event : this.events) {
					audited.add(event.eventType().wireName() + ":" + event.resultCode().wireName());
				}
				assertThat(audited).containsExactly("target_lease_acquire:lease_outcome_unknown");

				ObjectNode resolve = JSON.createObjectNode();
				resolve.put("service_instance_id", "inst-u");
				resolve.set("lock_identity", acquireBody(target, requestId, Instant.now()).get("lock_identity"));
				resolve.put("operation", "acquire");
				resolve.put("request_id", requestId);
				Reply resolved = send(replica, "resolve", resolve);
				assertThat(resolved.status()).as(resolved.json().toString()).isEqualTo(200);
				assertThat(resolved.json().path("code").asString()).isEqualTo("lease_acquired");
				assertThat(resolved.json().path("current_state").asString()).isEqualTo("active");
				JsonNode lease = resolved.json().path("lease");
				assertThat(lease.path("lock_identity").path("target_id").asString()).isEqualTo(target);
				assertThat(lease.path("fencing_token").asLong()).isPositive();
				// the retried acquire (same request id, same body) returns the same committed lease
				Reply retried = send(replica, "acquire", acquireBody(target, requestId, Instant.now().plusSeconds(5)));
				assertThat(retried.status()).isEqualTo(200);
				assertThat(retried.json().path("replayed").asBoolean()).isTrue();
				assertThat(retried.json().path("lease").path("lease_id").asString())
					.isEqualTo(lease.path("lease_id").asString());
				assertThat(retried.json().path("lease").path("fencing_token").asLong())
					.isEqualTo(lease.path("fencing_token").asLong());
			}
			finally {
				proxied.destroy();
			}
		}
	}

}
