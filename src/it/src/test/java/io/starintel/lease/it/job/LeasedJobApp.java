package io.starintel.lease.it.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.ConflictPolicy;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.TargetLeased;
import io.starintel.lease.store.LeaseStore;

/** One "instance" of a leased application: Redis auto-configuration, AOP and the lease auto-configurations. */
@SpringBootConfiguration
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
		LeaseStoreAutoConfiguration.class, io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration.class,
		LeaseJobAutoConfiguration.class })
class LeasedJobApp {

	@Bean
	Jobs jobs(Shared shared, LeaseStore store) {
		return new Jobs(shared, store);
	}

	@Bean
	Events events() {
		return new Events();
	}

	/** State shared by the instances of one test (registered into each context). */
	static class Shared {

		final AtomicInteger runs = new AtomicInteger();

		final CountDownLatch oneReturned = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final CountDownLatch started = new CountDownLatch(1);

		/** Counted down by each {@link Jobs#holdIgnoringCancellation} once it holds its lease. */
		final CountDownLatch holding = new CountDownLatch(20);

		/** The results of {@link Jobs#renewWithTtl}'s renewals, in order. */
		final List<LeaseResult> renewals = new CopyOnWriteArrayList<>();

		volatile LeaseContext context;

		volatile boolean interrupted;

		volatile Instant interruptedAt;

	}

	static class Events {

		final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeaseLostEvent event) {
			this.lost.add(event);
		}

	}

	static class Jobs {

		private final Shared shared;

		private final LeaseStore store;

		Jobs(Shared shared, LeaseStore store) {
			this.shared = shared;
			this.store = store;
		}

		/** Runs until the other instance's call has returned (so a double winner would show as two runs). */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "5s", maxLifetime = "1m")
		public Optional<String> race(String target) throws InterruptedException {
			this.shared.runs.incrementAndGet();
			this.shared.oneReturned.await(10, TimeUnit.SECONDS);
			return Optional.of(LeaseContext.current().orElseThrow().leaseId());
		}

		/** Holds the lease for the given time (the job's "work"), then proves authority at backend time. */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "2s", maxLifetime = "1m")
		public ResultCode holdFor(String target, long seconds) throws InterruptedException {
			LeaseContext context = LeaseContext.current().orElseThrow();
			this.shared.context = context;
			this.shared.started.countDown();
			this.shared.release.await(seconds, TimeUnit.SECONDS);
			return this.store.authorizeCommit(new CommitRequest(context.handle(),
					Identifiers.generate("correlation"), Instant.now().plusSeconds(5))).code();
		}

		/** Blocks until interrupted by lease loss. */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
		public void blockUntilCancelled(String target) {
			this.shared.context = LeaseContext.current().orElseThrow();
			this.shared.started.countDown();
			try {
				this.shared.release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				this.shared.interruptedAt = Instant.now();
				this.shared.interrupted = true;
			}
		}

		/** Blocks until interrupted at the end of a short maximum lifetime. */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "1500ms", maxLifetime = "2s")
		public void outliveLifetime(String target) {
			blockUntilCancelled(target);
		}

		/**
		 * Renews with a TTL above the policy's maximum, a zero and an unrepresentable one (all refused), then with
		 * {@code ttl} through its context, and holds
		 * the lease until {@link Shared#release} opens.
		 */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "2s", maxLifetime = "1m")
		public void renewWithTtl(String target, Duration ttl) throws InterruptedException {
			LeaseContext context = LeaseContext.current().orElseThrow();
			this.shared.context = context;
			this.shared.renewals.add(context.renew(Duration.ofHours(1)));
			// TTLs no request can carry: typed refusals too, not exceptions
			this.shared.renewals.add(context.renew(Duration.ZERO));
			this.shared.renewals.add(context.renew(Duration.ofSeconds(Long.MAX_VALUE)));
			this.shared.renewals.add(context.renew(ttl));
			this.shared.started.countDown();
			this.shared.release.await(30, TimeUnit.SECONDS);
		}

		/** Holds its lease until {@link Shared#release} opens, ignoring interrupts (a job that does not cooperate). */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "30s", maxLifetime = "1m")
		public void holdIgnoringCancellation(String target) {
			this.shared.holding.countDown();
			boolean interrupted = false;
			while (true) {
				try {
					if (this.shared.release.await(60, TimeUnit.SECONDS)) {
						break;
					}
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}

		/** Answers its lease id (a job that only needs to run under its lease). */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "5s", maxLifetime = "1m",
				onConflict = ConflictPolicy.THROW)
		public String leaseId(String target) {
			this.shared.context = LeaseContext.current().orElseThrow();
			return this.shared.context.leaseId();
		}

		/** Restores an interrupt it caught before it returns, as a job should: it ends with its flag set. */
		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "5s", maxLifetime = "1m")
		public String endInterrupted(String target) {
			this.shared.context = LeaseContext.current().orElseThrow();
			Thread.currentThread().interrupt();
			return this.shared.context.leaseId();
		}

		@TargetLeased(target = "#target", actor = "usernamegen", ttl = "3s", maxLifetime = "1m")
		public void fail(String target) {
			this.shared.context = LeaseContext.current().orElseThrow();
			throw new IllegalStateException("job failed");
		}

	}

}
