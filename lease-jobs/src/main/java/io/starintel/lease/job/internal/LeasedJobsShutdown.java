package io.starintel.lease.job.internal;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.Reason;
import io.starintel.lease.service.LeaseService;

/**
 * Graceful shutdown of leased jobs, bounded by {@code starintel.lease.job.shutdown-timeout} (default 5s, well under
 * Spring Boot's 30s lifecycle phase timeout).
 *
 * <p>On stop: the aspect stops accepting new leased work; every running job's cancellation is signalled (interrupt
 * or future cancellation, per {@code starintel.lease.job.cancellation}); jobs that end within the first half of the
 * timeout release their own leases; the leases of jobs still running then are released here (the job loses its
 * authority: fencing rejects its later commits), as long as the timeout has not passed. Every release is logged with
 * its real answer; a lease not released is logged as left to expire at its {@code expires_at}.
 *
 * <p>Stops in phase {@link #PHASE}: after the web server stopped taking requests and before the Redis connection
 * factory (phase 0) closes, so releases still reach the backend.
 */
final class LeasedJobsShutdown implements SmartLifecycle {

	/** The lifecycle phase: stops before phase-0 beans such as the Lettuce connection factory. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Logger logger = LoggerFactory.getLogger(LeasedJobsShutdown.class);

	private final TargetLeaseAspect aspect;

	private final LeaseRenewalScheduler scheduler;

	private final LeaseService service;

	private final Duration timeout;

	private volatile boolean running;

	/** A shutdown over the aspect, the scheduler holding the leases and the service releasing them. */
	LeasedJobsShutdown(TargetLeaseAspect aspect, LeaseRenewalScheduler scheduler, LeaseService service,
			Duration timeout) {
		this.aspect = Objects.requireNonNull(aspect, "aspect");
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
		this.service = Objects.requireNonNull(service, "service");
		this.timeout = Objects.requireNonNull(timeout, "timeout");
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.aspect.stopAccepting();
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
		for (LeaseRenewal registration : this.scheduler.registrations()) {
			LeaseContext context = registration.context();
			if (System.nanoTime() - giveUpAt >= 0 || Thread.currentThread().isInterrupted()) {
				logger.warn("Shutdown timeout reached: lease left to expire at {}: {}", context.expiresAt(), context);
				continue;
			}
			if (!registration.claimRelease()) {
				continue; // the job is releasing it itself
			}
			registration.close();
			LeaseResult released = this.service.release(new ReleaseRequest(context.handle(), this.service.newId(),
				this.service.deadline()));
			if (released.isSuccess()) {
				context.markLost(Reason.STALE_LEASE); // the running job no longer holds it
				logger.info("Lease released at shutdown while its job was still running: {}", context);
			}
			else {
				logger.warn("Lease release at shutdown answered {}; it ends at its expiry {}: {}",
						released.code().wireName(), context.expiresAt(), context);
			}
		}
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
