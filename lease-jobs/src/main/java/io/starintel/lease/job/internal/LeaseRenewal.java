package io.starintel.lease.job.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.service.LeaseService;

/**
 * One lease's renewal, registered with a {@link LeaseRenewalScheduler}: renews at about {@code ttl/3} with +-10%
 * jitter, never past the maximum lifetime, retries a failed renewal until the safety margin before expiry and then
 * declares the lease lost (context marked lost, {@link LeaseLostEvent}, the job's cancellation). Closing it stops
 * renewal without signalling loss; {@link #release} then releases the lease, never overtaken by its renewal.
 */
public final class LeaseRenewal implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LeaseRenewalScheduler.class);

	private static final long MIN_DELAY_MS = 20;

	private final LeaseRenewalScheduler scheduler;

	private final LeaseContext context;

	private final Runnable cancellation;

	private volatile boolean closed;

	/** Whether a batch carries this lease's renewal to the backend and has not had its answer (guarded by this). */
	private boolean renewalInFlight;

	private final AtomicBoolean signalled = new AtomicBoolean();

	private final AtomicBoolean releaseClaimed = new AtomicBoolean();

	private volatile RenewalTimer.@Nullable Planned next;

	private volatile Instant plannedAt = Instant.EPOCH;

	LeaseRenewal(LeaseRenewalScheduler scheduler, LeaseContext context, Runnable cancellation) {
		this.scheduler = scheduler;
		this.context = context;
		this.cancellation = cancellation;
	}

	/** The renewed context. */
	public LeaseContext context() {
		return this.context;
	}

	/** Stops renewing (the job ended); idempotent. No batch sends this lease's renewal after it returns. */
	@Override
	public void close() {
		synchronized (this) {
			this.closed = true;
		}
		RenewalTimer.Planned planned = this.next;
		if (planned != null) {
			planned.cancel();
		}
		this.scheduler.ended(this);
	}

	/**
	 * Claims the one release of this lease: true for the first caller only (the job's end or shutdown), so a lease is
	 * never released twice.
	 */
	public boolean claimRelease() {
		return this.releaseClaimed.compareAndSet(false, true);
	}

	/**
	 * Releases the lease (after {@link #close}) with a fresh request id, once no renewal of it is on its way to the
	 * backend: the release then reaches the backend after that renewal, never before it (a renewal arriving after the
	 * release would be answered {@code lease_lost}: a wasted call and a misleading renew event). The wait ends at
	 * {@code deadline}, the release's own; most often no renewal is on its way and the release goes at once.
	 */
	LeaseResult release(LeaseService service, Instant deadline) {
		awaitRenewalAnswered(deadline);
		return service.release(new ReleaseRequest(this.context.handle(), service.newId(), deadline,
				RequestCaller.holderOf(this.context.lease())));
	}

	/**
	 * Waits, after {@link #close}, until no renewal of this lease is on its way to the backend, but not past
	 * {@code deadline}. A renewal is on its way for one batch call, which ends by its own deadline.
	 * @return whether no renewal is on its way (false: the deadline passed or the thread was interrupted first)
	 */
	boolean awaitRenewalAnswered(Instant deadline) {
		long giveUpAt = System.nanoTime()
				+ Math.max(0, Duration.between(this.scheduler.clock().instant(), deadline).toNanos());
		synchronized (this) {
			while (this.renewalInFlight) {
				long remainingMs = (giveUpAt - System.nanoTime()) / 1_000_000;
				if (remainingMs <= 0) {
					return false;
				}
				try {
					wait(remainingMs);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt(); // the release goes now; the caller sees the interrupt
					return false;
				}
			}
			return true;
		}
	}

	/**
	 * Takes this lease's renewal into a batch about to be sent: false once {@link #close closed}, so that no renewal is
	 * sent for a lease whose job ended.
	 */
	synchronized boolean claimForBatch() {
		if (this.closed) {
			return false;
		}
		this.renewalInFlight = true;
		return true;
	}

	/** The batch that carried this lease's renewal has its answer (or failed): a release waiting for it may go. */
	synchronized void batchAnswered() {
		this.renewalInFlight = false;
		notifyAll();
	}

	/** Signals the job's cancellation (shutdown) without declaring the lease lost; must not block. */
	public void cancelJob() {
		try {
			this.cancellation.run();
		}
		catch (RuntimeException ex) {
			logger.error("Job cancellation failed", ex);
		}
	}

	/**
	 * An administrator of this JVM ended this lease, or may have (its force-release or revoke was outcome-unknown):
	 * the planned renewal runs at once instead of at its tick, so that its {@code lease_lost} answer cancels the job
	 * now (the contract: a revoke signals cancellation immediately). Nothing changes while a renewal is on its way or a
	 * tick is running (their answer comes first), nor once the job ended. Never blocks.
	 */
	void renewSoon() {
		synchronized (this) {
			if (this.closed || this.renewalInFlight) {
				return;
			}
		}
		RenewalTimer.Planned planned = this.next;
		if (planned != null && planned.cancel()) {
			schedule(0);
		}
	}

	void scheduleNext() {
		Instant now = this.scheduler.clock().instant();
		Instant expiresAt = this.context.expiresAt();
		long delayMs;
		if (!expiresAt.isBefore(this.context.lease().lifetimeEnd())) {
			// contract: renewal never passes maximum_lifetime_ms; wake up at expiry to cancel the job
			delayMs = Duration.between(now, expiresAt).toMillis();
		}
		else {
			long third = this.context.ttlMs() / 3; // the current TTL: a renewal may have set a new one
			long jitter = (third / 10 > 0) ? ThreadLocalRandom.current().nextLong(-third / 10, third / 10 + 1) : 0;
			long latest = Duration.between(now, expiresAt).toMillis() - this.scheduler.marginMs(this.context);
			delayMs = Math.min(third + jitter, latest);
		}
		schedule(Math.max(MIN_DELAY_MS, delayMs));
	}

	private void schedule(long delayMs) {
		if (this.closed) {
			return;
		}
		this.plannedAt = this.scheduler.clock().instant().plusMillis(delayMs);
		try {
			this.next = this.scheduler.schedule(this::tick, delayMs);
		}
		catch (RejectedExecutionException ex) {
			lose(Reason.BACKEND_UNREACHABLE); // scheduler shut down: nobody renews any more
		}
	}

	private void tick() {
		if (this.closed) {
			return;
		}
		Instant now = this.scheduler.clock().instant();
		if (now.isAfter(this.plannedAt)) {
			this.scheduler.recordLag(Duration.between(this.plannedAt, now));
		}
		if (this.context.isLost()) {
			lose(Reason.STALE_LEASE); // marked lost by another component: stop renewing and cancel the job
			return;
		}
		Instant expiresAt = this.context.expiresAt();
		boolean atLifetimeEnd = !expiresAt.isBefore(this.context.lease().lifetimeEnd());
		if (!now.isBefore(expiresAt)) {
			lose(atLifetimeEnd ? Reason.MAXIMUM_LIFETIME_REACHED : Reason.EXPIRED);
			return;
		}
		if (atLifetimeEnd) {
			scheduleNext(); // woke early: wait for the expiry
			return;
		}
		// the renewal's deadline is the safety margin before expiry: a silent backend is noticed before expiry
		Instant notAfter = expiresAt.minusMillis(this.scheduler.marginMs(this.context));
		this.scheduler.enqueue(this, notAfter);
	}

	/**
	 * Renews now with a new TTL ({@link LeaseContext#renew}); on success the context keeps the new TTL and the next
	 * scheduled renewal follows it (about a third of the new TTL from now, never past the maximum lifetime).
	 */
	LeaseResult renewNow(Duration ttl) {
		if (this.closed || this.context.isLost()) {
			return LeaseResult.failure(ResultCode.LEASE_LOST, this.context.lossReason().orElse(Reason.STALE_LEASE),
					null);
		}
		long ttlMs;
		LeaseResult result;
		try {
			ttlMs = ttl.toMillis();
			result = this.scheduler.renewNow(this.context, ttlMs);
		}
		catch (ArithmeticException | InvalidLeaseRequestException ex) {
			// a TTL the request cannot carry (zero, negative, beyond a long of milliseconds): typed, the lease untouched
			return LeaseResult.invalid((ex instanceof InvalidLeaseRequestException invalid) ? invalid
					: new InvalidLeaseRequestException("ttl_ms", "out of range"));
		}
		if (result.isSuccess() && result.lease() != null) {
			this.context.renewed(result.lease().expiresAt(), ttlMs);
			RenewalTimer.Planned planned = this.next;
			if (planned != null) {
				planned.cancel();
			}
			scheduleNext();
		}
		else if (result.code() == ResultCode.LEASE_LOST) {
			lose((result.reason() != Reason.NONE) ? result.reason() : Reason.STALE_LEASE);
		}
		return result;
	}

	/** The rest of a tick, once the (batched) renewal answered. */
	void renewed(LeaseResult result) {
		if (this.closed) {
			return; // the job ended and released meanwhile: a lease_lost answer here is not a loss
		}
		if (result.isSuccess() && result.lease() != null) {
			this.context.renewed(result.lease().expiresAt());
			scheduleNext();
		}
		else if (result.code() == ResultCode.LEASE_LOST) {
			lose((result.reason() != Reason.NONE) ? result.reason() : Reason.STALE_LEASE);
		}
		else {
			retryOrLose(result);
		}
	}

	private void retryOrLose(LeaseResult result) {
		Instant now = this.scheduler.clock().instant();
		long untilMargin = Duration.between(now, this.context.expiresAt()).toMillis()
				- this.scheduler.marginMs(this.context);
		if (untilMargin <= 0) {
			lose((result.code() == ResultCode.LEASE_OUTCOME_UNKNOWN) ? Reason.REPLY_LOST : Reason.BACKEND_UNREACHABLE);
			return;
		}
		logger.warn("Lease renewal failed ({}), retrying before the safety margin: {}", result.code().wireName(),
				this.context);
		schedule(Math.min(untilMargin, Math.max(MIN_DELAY_MS, this.context.ttlMs() / 10)));
	}

	void lose(Reason reason) {
		this.context.markLost(reason);
		if (!this.signalled.compareAndSet(false, true)) {
			return;
		}
		// the context may have been marked lost elsewhere first (e.g. a rejected fenced commit): signal that reason
		reason = this.context.lossReason().orElse(reason);
		close();
		logger.warn("Lease lost ({}): {} actor={}; cancelling the job", reason.wireName(), this.context,
				this.context.identity().actorName());
		this.scheduler.publishLoss(new LeaseLostEvent(this.context, reason));
		try {
			this.cancellation.run();
		}
		catch (RuntimeException ex) {
			logger.error("Job cancellation failed", ex);
		}
	}

}
