package io.starintel.lease.admin.it;

import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin endpoint over real HTTP on the Redis store against real Redis (REDIS_HOST/REDIS_PORT, default
 * 127.0.0.1:6379). The store writes force-release/revoke audit events in its transition script; the endpoint's own
 * stream sink skips exactly those, so each admin decision appears once in the program's stream.
 */
@SpringBootTest(classes = AdminTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.admin.admission.burst=100000",
				"starintel.lease.admin.admission.permits-per-second=100000" })
@Import(RedisStoreAdminEndpointTests.RedisStore.class)
class RedisStoreAdminEndpointTests extends AbstractAdminEndpointTests {

	@TestConfiguration(proxyBeanMethods = false)
	static class RedisStore {

		@Bean
		LeaseStore leaseStore(RedisConnectionFactory connectionFactory) {
			return new RedisLeaseStore(connectionFactory, LeasePolicy.defaults(), LeaseAlerts.LOG);
		}

	}

	/** Backend names, keys and secrets never leak, even with the real Redis store behind the endpoint. */
	@Test
	void malformedInputSweepNeverYieldsAServerErrorOrALeak() {
		LeaseRecord lease = acquire(identity("t-sweep"));
		ObjectNode valid = adminBody(lease, "req-sweep-1", "sweep");
		valid.put("lease_id", "lease_not_the_active_one");
		List<MalformedInputSweep.Case> cases = MalformedInputSweep.cases(valid, scopeQuery());
		assertThat(cases).hasSizeGreaterThan(300);
		List<String> failures = new ArrayList<>();
		for (MalformedInputSweep.Case c : cases) {
			AdminHttp.Reply reply = "POST".equals(c.method()) ? this.http.post(c.path(), c.body(), ADMIN, c.contentType())
					: "GET".equals(c.method()) ? this.http.get(c.path(), ADMIN) : this.http.method(c.method(), c.path(), ADMIN);
			String problem = sweepProblem(c, reply, lease);
			if (problem != null) {
				failures.add(c.name() + " -> " + reply.status() + " " + problem + " " + abbreviate(reply.body()));
			}
		}
		assertThat(failures).as("failures of %d generated cases", cases.size()).isEmpty();
		// the lease survived every malformed request
		assertThat(this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), ADMIN).status()).isEqualTo(200);
	}

	private static String sweepProblem(MalformedInputSweep.Case c, AdminHttp.Reply reply, LeaseRecord lease) {
		if (reply.status() >= 500 || (reply.status() == 200 && c.strict())) {
			return "status";
		}
		String body = reply.body();
		for (String leak : List.of(LockIdentity.KEY_PREFIX, lease.identity().keyDigest(), "Exception", "exception",
				"\tat ", "redis", "Redis", "lettuce", "Lettuce", "valkey", "org.springframework", "java.", "tomcat",
				"Tomcat", ADMIN_PASSWORD, "127.0.0.1", "6379")) {
			if (body.contains(leak)) {
				return "leaks " + leak;
			}
		}
		if (c.name().contains("container-rejected")) {
			return (reply.status() == 400) ? null : "expected the container's 400";
		}
		JsonNode json;
		try {
			json = reply.json();
		}
		catch (RuntimeException ex) {
			return "not JSON";
		}
		if (reply.status() == 200) {
			return null;
		}
		if (json == null || !json.isObject() || !"error".equals(json.path("status").asString(""))
				|| json.path("correlation_id").asString("").isEmpty()) {
			return "not an error envelope";
		}
		if (c.strict() && (reply.status() != 400 || !"invalid_lease_request".equals(json.path("code").asString("")))) {
			return "expected 400 invalid_lease_request";
		}
		return null;
	}

	private static String abbreviate(String body) {
		return (body.length() > 200) ? body.substring(0, 200) + "..." : body;
	}

}
