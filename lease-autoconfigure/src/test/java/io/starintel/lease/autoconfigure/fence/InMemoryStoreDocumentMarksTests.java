package io.starintel.lease.autoconfigure.fence;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.ektorp.CouchDbConnector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.couchdb.DocumentMarkStore;
import io.starintel.lease.fence.couchdb.FencedCouchDbConnector;
import io.starintel.lease.fence.couchdb.FencedCouchDbReader;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * With the in-memory lease store the CouchDB fence keeps no document marks in Redis, even when the application
 * configures a Redis (here one that does not answer): a fenced write is {@code fenced_write_accepted}, not
 * {@code fenced_write_accepted_mark_pending}, and nothing reaches that Redis.
 */
class InMemoryStoreDocumentMarksTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"t-marks", "usernamegen", "default", null);

	private static final LeaseOwner OWNER = new LeaseOwner("prn_test", "c", "k", "i");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class, FenceAutoConfiguration.class, FenceCouchDbAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "spring.data.redis.url=redis://127.0.0.1:1",
				"starintel.lease.fence.couchdb.install-design-document=false")
		.withBean(CouchDbConnector.class, () -> mock(CouchDbConnector.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

	@Test
	void withTheInMemoryStoreThereAreNoMarksAndAFencedWriteIsAcceptedWithoutRedis() {
		this.runner.withPropertyValues("starintel.lease.store=memory").run((context) -> {
			assertThat(context).hasSingleBean(StringRedisTemplate.class)
				.hasSingleBean(InMemoryLeaseStore.class)
				.doesNotHaveBean(DocumentMarkStore.class)
				.doesNotHaveBean(FencedCouchDbReader.class);
			assertThat(write(context)).isEqualTo(FenceOutcome.ACCEPTED);
		});
	}

	@Test
	void anInMemoryStoreDeclaredAsLeaseStoreKeepsNoMarksEither() {
		this.runner.withBean(LeaseStore.class, InMemoryLeaseStore::new)
			.run((context) -> assertThat(write(context)).isEqualTo(FenceOutcome.ACCEPTED));
	}

	private static FenceOutcome write(AssertableApplicationContext context) {
		LeaseService service = context.getBean(LeaseService.class);
		LeaseResult acquired = service.acquire(AcquireRequest.builder(IDENTITY, OWNER)
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(service.newId(), service.deadline()));
		assertThat(acquired.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		FencedCouchDbConnector fenced = context.getBean("fencedCouchDbConnector", FencedCouchDbConnector.class);
		try (LeaseContext.Scope scope = LeaseContext.bind(new LeaseContext(acquired.lease()))) {
			return fenced.tryCreate(new HashMap<>(Map.of("_id", "doc-1", "a", 1))).outcome();
		}
	}

}
