package io.starintel.lease.admin.console;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.test.RedisContainerConnection;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The console's test application: only the auto-configuration chain of the starter and the admin module (the Redis
 * store on real Redis, the audit pipeline, the stream sink, the fence guard, both security chains) and one leased job.
 * No lease bean of its own. Redis is a container through {@code @ServiceConnection} when the run uses containers
 * ({@link RedisContainerConnection}), else {@code STARINTEL_REDIS_URL}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RedisContainerConnection.class)
public class ConsoleTestApplication {

	@Bean
	StuckJob stuckJob(FenceGuard guard) {
		return new StuckJob(guard);
	}

	/** One run of the job: its target and the latches the test drives it with. */
	public record Run(String target, CountDownLatch started, CountDownLatch commit,
			AtomicReference<LeaseContext> context, AtomicReference<FenceDecision> decision) {

		public Run(String target) {
			this(target, new CountDownLatch(1), new CountDownLatch(1), new AtomicReference<>(),
					new AtomicReference<>());
		}

		/** The job's lease once it runs; fails with the job's own failure when it ended without running. */
		LeaseContext awaitStarted(Future<?> job) throws Exception {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (!this.started.await(200, TimeUnit.MILLISECONDS)) {
				if (job.isDone()) {
					job.get(); // the aspect's typed failure (e.g. the lease was not acquired)
					throw new AssertionError("the job ended without running");
				}
				if (System.nanoTime() > deadline) {
					throw new AssertionError("the job did not start within 60 s");
				}
			}
			return this.context.get();
		}

	}

	/**
	 * A job that holds its target's lease until the test lets it commit, then tries one fenced write (a
	 * {@link FenceGuard} authorization, the check every fenced writer makes first). A stuck worker: when its lease is
	 * revoked meanwhile, it still tries the write, and the fence refuses it.
	 */
	public static class StuckJob {

		private final FenceGuard guard;

		public StuckJob(FenceGuard guard) {
			this.guard = guard;
		}

		@TargetLeased(target = "#run.target()", actor = "usernamegen", ttl = "30s", maxLifetime = "5m")
		public void process(Run run) {
			LeaseContext context = LeaseContext.current().orElseThrow();
			run.context().set(context);
			run.started().countDown();
			try {
				run.commit().await(Duration.ofSeconds(90).toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				// the lease loss may interrupt the job; a stuck worker writes anyway
				Thread.interrupted();
			}
			run.decision().set(this.guard.authorize(context));
		}

	}

}
