package io.starintel.lease.testing;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.couchdb.DocumentMarkStore;
import io.starintel.lease.testing.app.JobApplication;
import io.starintel.lease.testing.app.ScanJob;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose configuration names a Redis (here one that does not answer), tested in memory: nothing of the
 * test goes to that Redis, and its outcomes do not depend on it (the job's fenced CouchDB write keeps no document
 * mark: {@code fenced_write_accepted}).
 */
@SpringBootTest(classes = JobApplication.class, properties = "spring.data.redis.url=redis://127.0.0.1:1")
@AutoConfigureLeaseTest(store = LeaseTestStoreMode.MEMORY)
class InMemoryWithRedisConfiguredTests {

	@Autowired
	TargetLeaseTester leases;

	@Autowired
	ScanJob job;

	@Autowired
	ApplicationContext context;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void stopJobs() {
		this.executor.shutdownNow();
	}

	@Test
	void theFencedWriteIsAcceptedWithoutAMarkInTheConfiguredRedis() throws Exception {
		assertThat(this.leases.isInMemory()).isTrue();
		assertThat(this.context.getBeansOfType(StringRedisTemplate.class)).as("the application's Redis").isNotEmpty();
		assertThat(this.context.getBeanNamesForType(DocumentMarkStore.class)).isEmpty();
		String target = "marks-" + UUID.randomUUID().toString().substring(0, 8);
		CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> this.job.scan(target), this.executor);
		HeldLease lease = this.leases.awaitLease(target);
		this.job.finish(target);
		assertThat(run.get(15, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.job.run(target).write().outcome()).isEqualTo(FenceOutcome.ACCEPTED);
		assertThat(this.job.run(target).write().stamp().fencingToken()).isEqualTo(lease.fencingToken());
	}

}
