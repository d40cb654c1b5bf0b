package io.starintel.lease.admin.it;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

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

	}

}
