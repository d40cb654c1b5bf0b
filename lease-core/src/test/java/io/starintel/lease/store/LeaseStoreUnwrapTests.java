package io.starintel.lease.store;

import java.time.Clock;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link LeaseStore#unwrap}: wiring finds a backend's own API through the decorators that stand in its place. */
class LeaseStoreUnwrapTests {

	@Test
	void aStoreAnswersForItselfAndNotForOtherTypes() {
		InMemoryLeaseStore memory = new InMemoryLeaseStore();
		assertThat(memory.unwrap(InMemoryLeaseStore.class)).containsSame(memory);
		assertThat(memory.unwrap(AuditingLeaseStore.class)).isEmpty();
	}

	@Test
	void aDecoratorAnswersForItselfThenAsksItsDelegate() {
		InMemoryLeaseStore memory = new InMemoryLeaseStore();
		AuditingLeaseStore audited = new AuditingLeaseStore(memory, List.of(), Clock.systemUTC(), false);
		assertThat(audited.unwrap(AuditingLeaseStore.class)).containsSame(audited);
		assertThat(audited.unwrap(InMemoryLeaseStore.class)).containsSame(memory);
		assertThat(audited.unwrap(String.class)).isEmpty();
	}

}
