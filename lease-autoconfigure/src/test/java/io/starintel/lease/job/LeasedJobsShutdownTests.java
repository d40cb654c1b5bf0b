package io.starintel.lease.job;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseSweeperAutoConfiguration;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.sweep.ExpirySweeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bounded shutdown of leased jobs (bean {@code leasedJobsShutdown}): closing a context mid-job cancels the job,
 * releases its lease (observed in the store) well within the shutdown timeout, logs the release, and refuses new
 * leased work.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeasedJobsShutdownTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
				LeaseAuditAutoConfiguration.class, LeaseJobAutoConfiguration.class))
		.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
				"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test",
				"starintel.lease.ttl.minimum=100ms", "starintel.lease.renewal.margin=100ms")
		.withBean(JobState.class)
		.withBean(LeasedJobs.class);

	private static LockIdentity identity(String target) {
		return LockIdentity.of("tenant-main", "program-a", "starintel-target", target, "usernamegen", "default",
				"default");
	}

	private static ResultCode inspect(LeaseStore store, String target) {
		return store.inspect(InspectRequest.byIdentity(identity(target), "corr_test", Instant.now().plusSeconds(5)))
			.code();
	}

	@Test
	void whenContextClosesMidJobThenJobIsInterruptedAndLeaseReleasedQuickly(CapturedOutput output) {
		this.runner.run((context) -> {
			LeasedJobs jobs = context.getBean(LeasedJobs.class);
			JobState state = context.getBean(JobState.class);
			LeaseStore store = context.getBean(LeaseStore.class);
			CompletableFuture<Void> job = CompletableFuture.runAsync(() -> jobs.hold("target_s1"));
			assertThat(state.started.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(inspect(store, "target_s1")).isEqualTo(ResultCode.LEASE_INSPECTED);
			long started = System.nanoTime();
			context.close();
			Duration took = Duration.ofNanos(System.nanoTime() - started);
			job.get(30, TimeUnit.SECONDS);
			assertThat(state.interrupted).isTrue();
			assertThat(inspect(store, "target_s1")).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(took).isLessThan(Duration.ofSeconds(5)); // the shutdown timeout; Boot's phase timeout is 30s
			assertThat(output.getOut()).contains("Lease released at shutdown (the job ended)");
		});
	}

	@Test
	void whenJobIgnoresCancellationThenShutdownReleasesItsLeaseWithinTheTimeout(CapturedOutput output) {
		this.runner.withPropertyValues("starintel.lease.job.cancellation=none", "starintel.lease.job.shutdown-timeout=2s")
			.run((context) -> {
				LeasedJobs jobs = context.getBean(LeasedJobs.class);
				JobState state = context.getBean(JobState.class);
				LeaseStore store = context.getBean(LeaseStore.class);
				CompletableFuture<Void> job = CompletableFuture.runAsync(() -> jobs.hold("target_s2"));
				assertThat(state.started.await(30, TimeUnit.SECONDS)).isTrue();
				long started = System.nanoTime();
				context.close();
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				assertThat(inspect(store, "target_s2")).isEqualTo(ResultCode.LEASE_NOT_FOUND);
				assertThat(state.blockedContext.get().isLost()).isTrue();
				assertThat(took).isLessThan(Duration.ofSeconds(10));
				assertThat(output.getOut()).contains("Lease released at shutdown while its job was still running");
				state.proceed.countDown();
				job.get(30, TimeUnit.SECONDS);
			});
	}

	/**
	 * A stopped context that is started again (Spring's test context cache pauses a cached context when another one is
	 * used and starts it again when it is reused; or {@code context.stop()} then {@code start()}) runs leased work and
	 * sweeps again.
	 */
	@Test
	void whenStoppedAndStartedAgainThenLeasedWorkRunsAndTheSweeperTicksAgain() {
		this.runner.withConfiguration(AutoConfigurations.of(LeaseSweeperAutoConfiguration.class)).run((context) -> {
			LeasedJobs jobs = context.getBean(LeasedJobs.class);
			ExpirySweeper sweeper = context.getBean(ExpirySweeper.class);
			assertThat(sweeper.isRunning()).isTrue();
			context.stop();
			assertThat(jobs.process("target_s4")).as("stopped: not run").isNull();
			assertThat(sweeper.isRunning()).isFalse();
			context.start();
			assertThat(jobs.process("target_s4")).as("started again: run").isNotNull();
			assertThat(context.getBean(JobState.class).runs).hasValue(1);
			assertThat(sweeper.isRunning()).isTrue();
		});
	}

	@Test
	void whenStoppedThenNewLeasedWorkDoesNotRun() {
		this.runner.run((context) -> {
			LeasedJobs jobs = context.getBean(LeasedJobs.class);
			context.getBean("leasedJobsShutdown", SmartLifecycle.class).stop();
			assertThat(jobs.process("target_s3")).isNull();
			assertThatThrownBy(() -> jobs.processOrThrow("target_s3")).isInstanceOf(LeaseAcquisitionException.class)
				.hasMessageContaining("shutting down");
			assertThat(context.getBean(JobState.class).runs).hasValue(0);
		});
	}

}
