package io.starintel.lease.admin.it;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.PrincipalClass;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin endpoint over real HTTP on the in-memory reference store; audit goes to the real Redis stream sink.
 */
@SpringBootTest(classes = AdminTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.admin.admission.burst=100000",
				"starintel.lease.admin.admission.permits-per-second=100000" })
@Import(MemoryStoreAdminEndpointTests.MemoryStore.class)
class MemoryStoreAdminEndpointTests extends AbstractAdminEndpointTests {

	@TestConfiguration(proxyBeanMethods = false)
	static class MemoryStore {

		@Bean
		LeaseStore leaseStore() {
			return new InMemoryLeaseStore();
		}

		@Bean
		AuditEventCollector auditEventCollector() {
			return new AuditEventCollector();
		}

	}

	/** Receives the audit events published as Spring application events. */
	static class AuditEventCollector {

		final List<AuditEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(AuditEvent event) {
			this.events.add(event);
		}

	}

	@Autowired
	AuditEventCollector collector;

	/** Issue 36: recovery is the Redis store's; on another store it is 400 with the reason. */
	@Test
	void recoverNeedsTheRedisStore() {
		LeaseRecord lease = acquire(identity("t-recover-memory"));
		AdminHttp.Reply reply = this.http.post("/recover", "{\"tenant_id\":\"" + TENANT + "\",\"program_id\":\""
				+ this.program + "\",\"reason\":\"restore\"}", ADMIN);
		assertError(reply, 400, "invalid_lease_request");
		assertThat(reply.json().get("msg").asString()).contains("recovery needs the Redis store");
		assertThat(this.http.get("/" + lease.leaseId() + "?" + scopeQuery(), ADMIN).status()).isEqualTo(200);
	}

	@Test
	void auditEventsArePublishedAsApplicationEventsWithTheCallersCorrelationId() {
		LeaseRecord lease = acquire(identity("t-events"));
		AdminHttp.Reply reply = this.http.getWithCorrelation("/" + lease.leaseId() + "?" + scopeQuery(), WORKER,
				"corr-events-1");
		assertThat(reply.status()).isEqualTo(200);
		assertThat(reply.json().get("correlation_id").asString()).isEqualTo("corr-events-1");
		assertThat(this.collector.events).anySatisfy((event) -> {
			assertThat(event.eventType()).isEqualTo(AuditEventType.INSPECT);
			assertThat(event.correlationId()).isEqualTo("corr-events-1");
			assertThat(event.principalClass()).isEqualTo(PrincipalClass.WORKER);
			assertThat(event.leaseId()).isEqualTo(lease.leaseId());
			assertThat(event.resultCode()).isEqualTo(ResultCode.LEASE_INSPECTED);
		});
		AdminHttp.Reply invalid = this.http.getWithCorrelation("/" + lease.leaseId() + "?" + scopeQuery(), WORKER,
				"bad correlation id with spaces");
		assertThat(invalid.json().get("correlation_id").asString()).startsWith("corr_");
	}

}
