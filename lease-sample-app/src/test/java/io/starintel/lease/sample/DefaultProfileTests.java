package io.starintel.lease.sample;

import java.time.Duration;

import org.ektorp.CouchDbConnector;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's run command: the default profile starts with no servers (in-memory lease store, no CouchDB
 * connector, no listener) and processes targets under leases.
 */
@SpringBootTest
class DefaultProfileTests {

	@Autowired
	private ApplicationContext context;

	@Autowired
	private ResultSink results;

	@Test
	void startsWithoutServersAndProcessesTargetsOnTheMemoryStore() {
		assertThat(this.context.getBeansOfType(LeaseStore.class).values())
			.anySatisfy((store) -> assertThat(store).isInstanceOf(InMemoryLeaseStore.class));
		assertThat(this.context.getBeanNamesForType(InMemoryLeaseStore.class)).isNotEmpty();
		assertThat(this.results).isInstanceOf(LoggingResultSink.class);
		assertThat(this.context.getBeanNamesForType(CouchDbConnector.class)).isEmpty();
		assertThat(this.context.getBeanNamesForType(ResultListener.class)).isEmpty();
		await().atMost(Duration.ofSeconds(15)).until(() -> this.results.committed() >= 1);
	}

}
