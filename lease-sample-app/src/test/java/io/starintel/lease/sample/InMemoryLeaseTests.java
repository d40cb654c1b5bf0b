package io.starintel.lease.sample;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.testing.AutoConfigureLeaseTest;
import io.starintel.lease.testing.HeldLease;
import io.starintel.lease.testing.TargetLeaseTester;

import static io.starintel.lease.testing.assertj.LeaseAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The first way of docs/testing.md: no server at all. The sample's default profile uses the in-memory store, and
 * {@code @AutoConfigureLeaseTest} swaps in its test variant; the scheduled workers are off, the test drives the leased
 * processor itself and revokes its lease from outside.
 */
@SpringBootTest(properties = { "sample.workers.enabled=false", "sample.work-duration=30s" })
@AutoConfigureLeaseTest
class InMemoryLeaseTests {

	private static final TargetRef TARGET = new TargetRef("target_01HZX3", "alpha.example");

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

	@Test
	void aRevokedJobIsCancelledBeforeItCommits() throws Exception {
		assertThat(this.leases.isInMemory()).isTrue();
		CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
			try {
				this.processor.process(TARGET, "test");
			}
			catch (InterruptedException ex) {
				throw new CompletionException(ex);
			}
		}, this.executor);
		HeldLease lease = this.leases.awaitLease(TARGET.id());
		assertThat(lease).withActor("usernamegen");
		this.leases.revoke(lease);
		this.leases.awaitCancellation(lease);
		this.leases.awaitJobEnded(lease);
		assertThatThrownBy(() -> run.get(10, TimeUnit.SECONDS)).hasRootCauseInstanceOf(InterruptedException.class);
		assertThat(this.results.committed()).isZero();
		assertThat(this.leases).hasRunUnderLease(TARGET.id()).withFencingToken(lease.fencingToken()).isNotActive();
		assertThat(this.leases.auditEvents()).hasEvent(AuditEventType.REVOKE, TARGET.id());
	}

}
