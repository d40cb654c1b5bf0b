package io.starintel.lease.it.fence;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import org.ektorp.CouchDbConnector;
import org.ektorp.http.StdHttpClient;
import org.ektorp.impl.StdCouchDbConnector;
import org.ektorp.impl.StdCouchDbInstance;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceAutoConfiguration;
import io.starintel.lease.autoconfigure.fence.FenceCouchDbAutoConfiguration;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FenceStamp;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.it.redis.AuditedApplication;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.test.TestServers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * CouchDB's server-side refusal on the assembled application (Redis, lease store, audit and fence auto-configurations,
 * a CouchDbConnector bean on Apache CouchDB; events captured by an {@link AuditSink} bean behind the audit pipeline):
 * a write the lease store authorized but the design document refused (its 403: the stored token is higher) emits one
 * {@code target_lease_commit_rejected} / {@code lease_lost} event with the reason
 * {@code couchdb:token_below_high_water_mark}.
 */
class CouchDbRefusalAuditTests {

	static final String DATABASE = "fence-audit-" + UUID.randomUUID().toString().substring(0, 8);

	@SpringBootConfiguration
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
			LeaseAuditAutoConfiguration.class, FenceAutoConfiguration.class, FenceCouchDbAutoConfiguration.class })
	static class App {

		@Bean
		AuditedApplication.Recorded recorded() {
			return new AuditedApplication.Recorded();
		}

		@Bean
		CouchDbConnector couchDbConnector() throws Exception {
			TestServers.CouchDb server = TestServers.apacheCouchDb();
			StdCouchDbInstance instance = new StdCouchDbInstance(new StdHttpClient.Builder().url(server.url())
				.caching(false)
				.username(server.user())
				.password(server.password())
				.build());
			CouchDbConnector connector = new StdCouchDbConnector(DATABASE, instance);
			connector.createDatabaseIfNotExists();
			return connector;
		}

	}

	@Test
	@SuppressWarnings("unchecked")
	void aWriteTheDesignDocumentRefusesEmitsOneRejectedCommitEvent() {
		String program = "p-" + UUID.randomUUID().toString().substring(0, 8);
		try (ConfigurableApplicationContext app = AuditedApplication.start(App.class, "tenant-couch-audit", program, "prn_couch_audit")) {
			LeaseService service = app.getBean(LeaseService.class);
			FencedCouchDbConnector fenced = app.getBean("fencedCouchDbConnector", FencedCouchDbConnector.class);
			CouchDbConnector raw = app.getBean(CouchDbConnector.class);
			AuditedApplication.Recorded recorded = app.getBean(AuditedApplication.Recorded.class);
			LockIdentity identity = LockIdentity.of("tenant-couch-audit", program, "starintel-target", "t-couch",
					"usernamegen", "default", "default");
			LeaseResult acquired = service.acquire(AcquireRequest
				.builder(identity, new LeaseOwner("prn_couch_audit", "client_1", "key_1", "instance_1"))
				.ttl(Duration.ofSeconds(30))
				.maximumLifetime(Duration.ofMinutes(5))
				.build(service.newId(), service.deadline()));
			assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			LeaseContext context = new LeaseContext(acquired.lease());
			Map<String, Object> doc = new LinkedHashMap<>();
			doc.put("_id", "d1");
			doc.put("value", "first");
			try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
				FencedWriteResult written = fenced.tryCreate(doc);
				assertThat(written.outcome()).isEqualTo(FenceOutcome.ACCEPTED);
				// another writer's higher token lands in CouchDB (here written directly, as a successor would)
				Map<String, Object> successor = raw.get(Map.class, "d1");
				successor.put(FenceStamp.FIELD, new FenceStamp(written.stamp().lockKeyDigest(),
						context.fencingToken() + 1000, "lease_successor", "exec_successor", "trace_successor",
						Instant.now()).toMap());
				raw.update(successor);
				doc.put("_rev", successor.get("_rev"));
				doc.put("value", "late");
				FencedWriteResult refused = fenced.tryUpdate(doc);
				assertThat(refused.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
				assertThat(refused.reason()).isEqualTo(Reason.TOKEN_BELOW_HIGH_WATER_MARK);
				// two decisions of the one write: the lease store granted the authorization, then CouchDB refused
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(recorded.events)
						.filteredOn((e) -> refused.correlationId().equals(e.correlationId()))
						.extracting((e) -> e.eventType().wireName())
						.containsExactly("target_lease_commit_authorize", "target_lease_commit_rejected"));
				assertThat(recorded.events)
						.filteredOn((e) -> refused.correlationId().equals(e.correlationId())
								&& e.eventType().wireName().equals("target_lease_commit_rejected"))
						.singleElement()
						.satisfies((e) -> {
							assertThat(e.eventType().wireName()).isEqualTo("target_lease_commit_rejected");
							assertThat(e.resultCode()).isEqualTo(ResultCode.LEASE_LOST);
							assertThat(e.reason()).isEqualTo("couchdb:token_below_high_water_mark");
							assertThat(e.fencingToken()).isEqualTo(context.fencingToken());
						});
			}
		}
	}

}
