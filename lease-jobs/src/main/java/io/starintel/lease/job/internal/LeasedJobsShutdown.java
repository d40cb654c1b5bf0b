package io.starintel.lease.job.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.service.LeaseService;

/**
 * Graceful shutdown of leased jobs, bounded by {@code starintel.lease.job.shutdown-timeout} (default 5s, well under
 * Spring Boot's 30s lifecycle phase timeout).
 *
 * <p>On stop: the interceptor stops accepting new leased work; every running job's cancellation is signalled (interrupt
 * or future cancellation, per {@code starintel.lease.job.cancellation}); jobs that end within the first half of the
 * timeout release their own leases; the leases of jobs still running then are released here, in parallel, each
 * release's deadline no later than the end of the timeout (the job loses its authority: fencing rejects its later
 * commits), so the stop never overruns the timeout by an operation timeout per lease. Every release is logged with
 * its real answer; a lease not released in time is logged as left to expire at its {@code expires_at}.
 *
 * <p>Stops in phase {@link #PHASE}: after the web server stopped taking requests and before the Redis connection
 * factory (phase 0) closes, so releases still reach the backend.
 */
final class LeasedJobsShutdown implements SmartLifecycle {

	/** The lifecycle phase: stops before phase-0 beans such as the Lettuce connection factory. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	/** At most this many releases run at once at shutdown. */
	static final int MAX_PARALLEL = 32;

	private static final Logger logger = LoggerFactory.getLogger(LeasedJobsShutdown.class);

	private final TargetLeaseInterceptor interceptor;

	private final LeaseRenewalScheduler scheduler;

	private final LeaseService service;

	private final Duration timeout;

	private volatile boolean running;

	/** A shutdown over the interceptor, the scheduler holding the leases and the service releasing them. */
	LeasedJobsShutdown(TargetLeaseInterceptor interceptor, LeaseRenewalScheduler scheduler, LeaseService service,
			Duration timeout) {
		this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
		this.service = Objects.requireNonNull(service, "service");
		this.timeout = Objects.requireNonNull(timeout, "timeout");
	}

	@Override
	public void start() {
		this.interceptor.startAccepting(); // a stopped context started again takes leased work again
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.interceptor.stopAccepting();
		long giveUpAt = System.nanoTime() + this.timeout.toNanos();
		List<LeaseRenewal> held = this.scheduler.registrations();
		if (held.isEmpty()) {
			return;
		}
		logger.info("Shutdown: cancelling {} leased job(s), releasing their leases within {}", held.size(),
				LeaseDurationFormat.format(this.timeout));
		held.forEach(LeaseRenewal::cancelJob);
		try {
			this.scheduler.awaitNoneHeld(this.timeout.dividedBy(2));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		releaseInParallel(this.scheduler.registrations(), giveUpAt);
	}

	/**
	 * Releases the leases of jobs still running, all at once (one thread each, at most {@value #MAX_PARALLEL}), each
	 * with a deadline no later than the shutdown timeout: a backend that stops answering costs the remaining
	 * timeout once, not a full operation timeout per lease. Leases whose release has not answered by then are logged
	 * as left to expire.
	 */
	private void releaseInParallel(List<LeaseRenewal> registrations, long giveUpAt) {
		List<LeaseRenewal> toRelease = new ArrayList<>();
		for (LeaseRenewal registration : registrations) {
			if (System.nanoTime() - giveUpAt >= 0 || Thread.currentThread().isInterrupted()) {
				logger.warn("Shutdown timeout reached: lease left to expire at {}: {}",
						registration.context().expiresAt(), registration.context());
			}
			else if (registration.claimRelease()) { // else the job is releasing it itself
				registration.close();
				toRelease.add(registration);
			}
		}
		if (toRelease.isEmpty()) {
			return;
		}
		Instant deadline = earlier(this.service.deadline(),
				Instant.now().plusNanos(Math.max(0, giveUpAt - System.nanoTime())));
		AtomicInteger threads = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(Math.min(toRelease.size(), MAX_PARALLEL), (task) -> {
			Thread thread = new Thread(task, "lease-shutdown-release-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		try {
			List<Future<?>> releases = new ArrayList<>(toRelease.size());
			for (LeaseRenewal registration : toRelease) {
				releases.add(executor.submit(() -> release(registration, deadline)));
			}
			for (int i = 0; i < releases.size(); i++) {
				try {
					releases.get(i).get(Math.max(0, giveUpAt - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (TimeoutException | ExecutionException ex) {
					LeaseContext context = toRelease.get(i).context();
					logger.warn("Shutdown timeout reached before the release answered: lease left to expire at {}: {}",
							context.expiresAt(), context);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					giveUpAt = System.nanoTime(); // the remaining ones are not waited for
				}
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private void release(LeaseRenewal registration, Instant deadline) {
		LeaseContext context = registration.context();
		LeaseResult released = registration.release(this.service, deadline);
		if (released.isSuccess()) {
			context.markLost(Reason.STALE_LEASE); // the running job no longer holds it
			logger.info("Lease released at shutdown while its job was still running: {}", context);
		}
		else {
			logger.warn("Lease release at shutdown answered {}; it ends at its expiry {}: {}",
					released.code().wireName(), context.expiresAt(), context);
		}
	}

	private static Instant earlier(Instant a, Instant b) {
		return a.isBefore(b) ? a : b;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
