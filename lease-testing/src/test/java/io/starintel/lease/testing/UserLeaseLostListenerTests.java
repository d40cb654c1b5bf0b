package io.starintel.lease.testing;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.LeaseLostListener;
import io.starintel.lease.testing.app.JobApplication;
import io.starintel.lease.testing.app.ScanJob;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with its own {@link LeaseLostListener}, injected elsewhere by its class: under
 * {@link AutoConfigureLeaseTest} the bean keeps its class (the context starts), it is still called, and the tester
 * still records the loss.
 */
@SpringBootTest(classes = JobApplication.class)
@AutoConfigureLeaseTest
@Import(UserLeaseLostListenerTests.PagerConfiguration.class)
class UserLeaseLostListenerTests {

	@Autowired
	PagerListener pager;

	@Autowired
	TargetLeaseTester leases;

	@Autowired
	ScanJob job;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void stopJobs() {
		this.executor.shutdownNow();
	}

	@Test
	void theApplicationsListenerKeepsItsClassIsCalledAndTheLossIsRecorded() throws Exception {
		String target = "pager-" + UUID.randomUUID().toString().substring(0, 8);
		CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> this.job.scan(target), this.executor);
		HeldLease lease = this.leases.awaitLease(target);
		this.leases.revoke(lease);
		LeaseLostEvent lost = this.leases.awaitCancellation(lease);
		assertThat(lost.context().leaseId()).isEqualTo(lease.leaseId());
		assertThat(this.pager.paged()).containsExactly(lease.leaseId());
		this.leases.awaitJobEnded(lease);
		run.get(15, TimeUnit.SECONDS);
	}

	/** The application's listener (not final: a final class could only be proxied by its interfaces). */
	public static class PagerListener implements LeaseLostListener {

		private final List<String> paged = new CopyOnWriteArrayList<>();

		@Override
		public void leaseLost(LeaseLostEvent event) {
			this.paged.add(event.context().leaseId());
		}

		public List<String> paged() {
			return this.paged;
		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class PagerConfiguration {

		@Bean
		PagerListener pagerListener() {
			return new PagerListener();
		}

	}

}
