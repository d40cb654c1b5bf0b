package com.example.consumer;

import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.testing.AutoConfigureLeaseTest;
import io.starintel.lease.testing.LeaseTestStoreMode;
import org.ektorp.CouchDbConnector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In-memory mode: no server at all. application.yml configures a Redis URL, so the store is chosen explicitly
 * ({@code store = MEMORY}); the CouchDB connector is a mock (the fence refuses a stale write before reaching it), no
 * RabbitMQ broker answers (a valid publish cannot be confirmed; a stale one is refused before any connection), and the
 * admin module's durable audit stream, which lives in Redis, is switched off.
 */
@SpringBootTest(properties = { "CONSUMER_PROGRAM=consumer-tests", "CONSUMER_INSTANCE=instance-test",
		"CONSUMER_QUEUE=consumer.results.tests", "CONSUMER_DATABASE=consumer-tests",
		"CONSUMER_ADMIN_HASH={bcrypt}$2a$10$dXJ3SW6G7P50lGmMkkmwe.20cQQubK3.HZWzG3YB1tlRy.fqvM/BG",
		"starintel.lease.admin.audit.stream-enabled=false", "spring.rabbitmq.port=1" })
@AutoConfigureLeaseTest(store = LeaseTestStoreMode.MEMORY)
class ScanJobInMemoryTests extends ScanJobScenarios {

	@MockitoBean
	CouchDbConnector couchDb;

	@Override
	void assertAcceptedPublish(FenceOutcome outcome) {
		// authorized, then no broker to confirm it: never reported as accepted
		assertThat(outcome).isIn(FenceOutcome.OUTCOME_UNKNOWN, FenceOutcome.BACKEND_UNAVAILABLE);
	}

	@Test
	void theTestRunsOnTheInMemoryStore() {
		assertThat(this.leases.isInMemory()).isTrue();
		assertThat(this.leases.store()).isInstanceOf(InMemoryLeaseStore.class);
	}

}
