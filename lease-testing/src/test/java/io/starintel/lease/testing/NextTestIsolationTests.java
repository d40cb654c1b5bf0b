package io.starintel.lease.testing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import io.starintel.lease.testing.app.JobApplication;
import io.starintel.lease.testing.app.ScanJob;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two test methods of one cached context, in order: the first ends with its job taken over and the competing holder
 * still holding the target; the second sees none of the first one's audit events and runs a job on the same target.
 */
@SpringBootTest(classes = JobApplication.class)
@AutoConfigureLeaseTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NextTestIsolationTests {

	private static final String TARGET = LeasedJobScenarios.target("shared");

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
	@Order(1)
	void aTestEndsWithItsJobTakenOverAndTheCompetitorStillHoldingTheTarget() {
		CompletableFuture.supplyAsync(() -> this.job.scan(TARGET), this.executor);
		HeldLease lease = this.leases.awaitLease(TARGET);
		Competitor competitor = this.leases.takeOver(lease);
		this.leases.awaitJobEnded(lease);
		assertThat(this.leases.isActive(competitor.lease())).as("not released by the test").isTrue();
	}

	@Test
	@Order(2)
	void theNextTestSeesNoneOfItsEventsAndItsJobGetsTheTarget() throws Exception {
		assertThat(this.leases.auditEvents().events()).as("captured events at the start of the test: %s",
				this.leases.auditEvents()).isEmpty();
		CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> this.job.scan(TARGET), this.executor);
		HeldLease lease = this.leases.awaitLease(TARGET, Duration.ofSeconds(5));
		this.job.finish(TARGET);
		this.leases.awaitJobEnded(lease);
		assertThat(run.get(15, TimeUnit.SECONDS)).isEqualTo("done");
	}

}
