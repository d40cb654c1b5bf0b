package io.starintel.lease.sample;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.testing.HeldLease;
import io.starintel.lease.testing.TargetLeaseTester;

import static io.starintel.lease.testing.assertj.LeaseAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Profile {@code real} on servers the test brings (Testcontainers or Docker Compose, the subclasses): the job's
 * commits (Redis checkpoint, CouchDB document, RabbitMQ message) are fenced. With {@code cancellation=none} a revoked
 * job goes on to commit, and every commit is refused.
 */
abstract class RealProfileLeaseScenarios {

	/** Properties shared by the subclasses. */
	static final String PROPERTIES = "sample.workers.enabled=false";

	@Autowired
	TargetLeaseTester leases;

	@Autowired
	UsernameGenProcessor processor;

	@Autowired
	ResultSink results;

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
	}

	CompletableFuture<Void> process(TargetRef target) {
		return CompletableFuture.runAsync(() -> {
			try {
				this.processor.process(target, "test");
			}
			catch (InterruptedException ex) {
				throw new CompletionException(ex);
			}
		}, this.executor);
	}

	@Test
	void theJobCommitsUnderItsLeaseAndARevokedOnesCommitsAreRefused() throws Exception {
		assertThat(this.leases.store()).isInstanceOf(RedisLeaseStore.class);
		int before = this.results.committed();
		TargetRef first = new TargetRef("target_01HZX4", "beta.example");
		CompletableFuture<Void> run = process(first);
		HeldLease lease = this.leases.awaitLease(first.id());
		run.get(30, TimeUnit.SECONDS);
		assertThat(this.results.committed()).isEqualTo(before + 1);
		assertThat(this.leases).hasRunUnderLease(first.id()).withFencingToken(lease.fencingToken()).hasEnded();

		TargetRef second = new TargetRef("target_01HZX5", "gamma.example");
		CompletableFuture<Void> stale = process(second);
		HeldLease revoked = this.leases.awaitLease(second.id());
		this.leases.revoke(revoked);
		// cancellation=none: the job goes on, commits after its work and returns (before its next renewal)
		this.leases.awaitJobEnded(revoked);
		stale.get(30, TimeUnit.SECONDS);
		assertThat(this.leases).hasRunUnderLease(second.id()).withFencingToken(revoked.fencingToken()).isNotActive();
		assertThat(this.results.committed()).as("nothing of the revoked job committed").isEqualTo(before + 1);
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.REVOKE, ResultCode.LEASE_REVOKED, second.id())
			.hasCommitRejected(second.id());
	}

}
