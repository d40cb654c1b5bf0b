package io.starintel.lease.job.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.LeaseLostListener;

/**
 * Renews every lease of the JVM on one shared, small pool of daemon threads (no thread per lease).
 *
 * <p>Contract rules enforced here: renewal is scheduled before expiry, at about {@code ttl/3} with +-10% jitter;
 * renewal never passes {@code maximum_lifetime_ms} (once {@code expires_at} reached the lifetime end, no renewal is
 * sent and the job is cancelled when that expiry passes); a renewal answered {@code lease_lost}, a local expiry, or
 * a backend that stays unavailable (or outcome-unknown) until the safety margin before expiry marks the context lost
 * at once, publishes a {@link LeaseLostEvent} and runs the job's cancellation. A context marked lost by another
 * component (for example a fenced write that was rejected) is signalled the same way at its next renewal tick.
 * Cancellation is advisory; fencing rejects commits. Listeners run on a renewal thread: keep them short.
 */
public final class LeaseRenewalScheduler implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LeaseRenewalScheduler.class);

	private static final long MIN_DELAY_MS = 20;

	/** How long due renewals are gathered before a batch is sent (small against any safety margin). */
	private static final long BATCH_WINDOW_MS = 20;

	private final LeaseService service;

	private final Clock clock;

	private final Duration safetyMargin;

	private final LeaseLostListener listener;

	private final ScheduledThreadPoolExecutor executor;

	private final Set<Registration> held = ConcurrentHashMap.newKeySet();

	private volatile @Nullable Consumer<Duration> lagRecorder;

	private final Object heldMonitor = new Object();

	private final Queue<DueRenewal> due = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean batchScheduled = new AtomicBoolean();

	/** Renewals in {@link #due} (the queue's own size is not constant-time). */
	private final AtomicInteger dueCount = new AtomicInteger();

	/**
	 * How many renewal batches may be in flight at once. Each batch is one store call that waits for its reply (no
	 * longer than the latest deadline of its leases); several in flight keep the connection pipelined, so one slow
	 * reply never holds up the renewals queued behind it, and the scheduling threads never wait for a reply.
	 */
	static final int MAX_BATCHES_IN_FLIGHT = 4;

	/**
	 * Leases per batch call (at most {@link LeaseStore#MAX_RENEW_BATCH}): small enough that a foreground call on the
	 * same connection (an acquire, a release) waits behind at most {@value #MAX_BATCHES_IN_FLIGHT} x this many
	 * renewals, large enough to amortize each call.
	 */
	static final int BATCH_SIZE = 64;

	private final Semaphore inFlight = new Semaphore(MAX_BATCHES_IN_FLIGHT);

	private final ExecutorService batches;

	/**
	 * A scheduler.
	 * @param service the lease service used to renew
	 * @param clock local clock (advisory: compared with the backend's {@code expires_at} only to decide loss early)
	 * @param safetyMargin how long before expiry an unanswered renewal counts as loss (capped at {@code ttl/3})
	 * @param listener receives loss events
	 * @param threads size of the scheduling pool (1-2 is plenty: the batch calls themselves run on up to
	 * {@value #MAX_BATCHES_IN_FLIGHT} threads of their own)
	 */
	public LeaseRenewalScheduler(LeaseService service, Clock clock, Duration safetyMargin, LeaseLostListener listener,
			int threads) {
		this.service = Objects.requireNonNull(service, "service");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.safetyMargin = Objects.requireNonNull(safetyMargin, "safetyMargin");
		this.listener = Objects.requireNonNull(listener, "listener");
		AtomicInteger count = new AtomicInteger();
		this.executor = new ScheduledThreadPoolExecutor(Math.max(1, threads), (runnable) -> {
			Thread thread = new Thread(runnable, "starintel-lease-renewal-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.executor.setRemoveOnCancelPolicy(true);
		AtomicInteger batchCount = new AtomicInteger();
		this.batches = Executors.newFixedThreadPool(MAX_BATCHES_IN_FLIGHT, (runnable) -> {
			Thread thread = new Thread(runnable, "starintel-lease-renewal-batch-" + batchCount.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/** Records how late each renewal ran compared with its schedule (e.g. into a Micrometer timer). */
	public void setLagRecorder(@Nullable Consumer<Duration> lagRecorder) {
		this.lagRecorder = lagRecorder;
	}

	/** Number of leases this JVM currently holds and renews. */
	public int heldCount() {
		return this.held.size();
	}

	/**
	 * Starts renewing a freshly acquired lease.
	 * @param context the lease's context
	 * @param cancellation what to do to the job on loss (interrupt a thread, cancel a future); must not block
	 * @return the registration; close it when the job ends (before releasing)
	 */
	public Registration register(LeaseContext context, Runnable cancellation) {
		Registration registration = new Registration(context, cancellation);
		this.held.add(registration);
		registration.scheduleNext();
		return registration;
	}

	/** A snapshot of the leases this JVM currently holds and renews. */
	public List<Registration> registrations() {
		return new ArrayList<>(this.held);
	}

	/**
	 * Waits until no lease is held any more or the timeout passed (for shutdown).
	 * @return whether no lease is held
	 */
	public boolean awaitNoneHeld(Duration timeout) throws InterruptedException {
		long giveUpAt = System.nanoTime() + timeout.toNanos();
		synchronized (this.heldMonitor) {
			while (!this.held.isEmpty()) {
				long remainingMs = (giveUpAt - System.nanoTime()) / 1_000_000;
				if (remainingMs <= 0) {
					return false;
				}
				this.heldMonitor.wait(remainingMs);
			}
			return true;
		}
	}

	/** Stops every renewal; leases then expire by TTL. */
	@Override
	public void close() {
		this.executor.shutdownNow();
		this.batches.shutdownNow();
		this.held.clear();
	}

	/** A renewal that is due, waiting for the next batch. */
	private record DueRenewal(Registration registration, Instant notAfter) {
	}

	/**
	 * Queues a due renewal and makes sure a batch runs: due renewals are sent together, grouped per program by the
	 * store ({@link LeaseService#renewAll}), at most {@link #BATCH_SIZE} per call.
	 */
	private void enqueue(DueRenewal due) {
		this.due.add(due);
		this.dueCount.incrementAndGet();
		if (this.batchScheduled.compareAndSet(false, true)) {
			try {
				// a short window gathers the renewals that fall due together into one batch
				this.executor.schedule(this::renewDue, BATCH_WINDOW_MS, TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.batchScheduled.set(false);
				due.registration().lose(Reason.BACKEND_UNREACHABLE); // scheduler shut down
			}
		}
	}

	/**
	 * Sends the due renewals as batches of at most {@link #BATCH_SIZE}, up to
	 * {@link #MAX_BATCHES_IN_FLIGHT} at once; what is left waits for the next batch to finish (which runs this again).
	 */
	private void renewDue() {
		this.batchScheduled.set(false);
		while (!this.due.isEmpty() && this.inFlight.tryAcquire()) {
			List<DueRenewal> batch = new ArrayList<>();
			DueRenewal next;
			while (batch.size() < BATCH_SIZE && (next = this.due.poll()) != null) {
				this.dueCount.decrementAndGet();
				batch.add(next);
			}
			if (batch.isEmpty()) {
				this.inFlight.release();
				return;
			}
			try {
				this.batches.execute(() -> runBatch(batch));
			}
			catch (RejectedExecutionException ex) {
				this.inFlight.release();
				for (DueRenewal due : batch) {
					due.registration().lose(Reason.BACKEND_UNREACHABLE); // scheduler shut down
				}
				return;
			}
		}
	}

	private void runBatch(List<DueRenewal> batch) {
		try {
			List<LeaseHandle> handles = new ArrayList<>(batch.size());
			List<Instant> deadlines = new ArrayList<>(batch.size());
			for (DueRenewal due : batch) {
				handles.add(due.registration().context().handle());
				deadlines.add(due.notAfter());
			}
			List<LeaseResult> results = this.service.renewAll(handles, deadlines);
			for (int i = 0; i < batch.size(); i++) {
				try {
					batch.get(i).registration().renewed(results.get(i));
				}
				catch (RuntimeException ex) {
					logger.error("Handling a renewal result failed", ex);
				}
			}
		}
		finally {
			this.inFlight.release();
			if (!this.due.isEmpty() && this.batchScheduled.compareAndSet(false, true)) {
				// a full batch waiting goes at once; a few renewals wait for the gathering window, as when enqueued
				long delayMs = (this.dueCount.get() >= BATCH_SIZE) ? 0 : BATCH_WINDOW_MS;
				try {
					this.executor.schedule(this::renewDue, delayMs, TimeUnit.MILLISECONDS);
				}
				catch (RejectedExecutionException ex) {
					this.batchScheduled.set(false);
				}
			}
		}
	}

	private long effectiveMarginMs(LeaseContext context) {
		return Math.min(this.safetyMargin.toMillis(), context.lease().ttlMs() / 3);
	}

	/** One lease's renewal; closing it stops renewal without signalling loss. */
	public final class Registration implements AutoCloseable {

		private final LeaseContext context;

		private final Runnable cancellation;

		private volatile boolean closed;

		private final java.util.concurrent.atomic.AtomicBoolean signalled = new java.util.concurrent.atomic.AtomicBoolean();

		private final java.util.concurrent.atomic.AtomicBoolean releaseClaimed = new java.util.concurrent.atomic.AtomicBoolean();

		private volatile @Nullable ScheduledFuture<?> next;

		private volatile Instant plannedAt = Instant.EPOCH;

		Registration(LeaseContext context, Runnable cancellation) {
			this.context = context;
			this.cancellation = cancellation;
		}

		/** The renewed context. */
		public LeaseContext context() {
			return this.context;
		}

		/** Stops renewing (the job ended); idempotent. */
		@Override
		public void close() {
			this.closed = true;
			ScheduledFuture<?> future = this.next;
			if (future != null) {
				future.cancel(false);
			}
			LeaseRenewalScheduler.this.held.remove(this);
			synchronized (LeaseRenewalScheduler.this.heldMonitor) {
				LeaseRenewalScheduler.this.heldMonitor.notifyAll();
			}
		}

		/**
		 * Claims the one release of this lease: true for the first caller only (the job's end or shutdown), so a
		 * lease is never released twice.
		 */
		public boolean claimRelease() {
			return this.releaseClaimed.compareAndSet(false, true);
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

		void scheduleNext() {
			Instant now = LeaseRenewalScheduler.this.clock.instant();
			Instant expiresAt = this.context.expiresAt();
			long delayMs;
			if (!expiresAt.isBefore(this.context.lease().lifetimeEnd())) {
				// contract: renewal never passes maximum_lifetime_ms; wake up at expiry to cancel the job
				delayMs = Duration.between(now, expiresAt).toMillis();
			}
			else {
				long third = this.context.lease().ttlMs() / 3;
				long jitter = (third / 10 > 0) ? ThreadLocalRandom.current().nextLong(-third / 10, third / 10 + 1) : 0;
				long latest = Duration.between(now, expiresAt).toMillis() - effectiveMarginMs(this.context);
				delayMs = Math.min(third + jitter, latest);
			}
			schedule(Math.max(MIN_DELAY_MS, delayMs));
		}

		private void schedule(long delayMs) {
			if (this.closed) {
				return;
			}
			this.plannedAt = LeaseRenewalScheduler.this.clock.instant().plusMillis(delayMs);
			try {
				this.next = LeaseRenewalScheduler.this.executor.schedule(this::tick, delayMs, TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				lose(Reason.BACKEND_UNREACHABLE); // scheduler shut down: nobody renews any more
			}
		}

		private void tick() {
			if (this.closed) {
				return;
			}
			Instant now = LeaseRenewalScheduler.this.clock.instant();
			Consumer<Duration> lag = LeaseRenewalScheduler.this.lagRecorder;
			if (lag != null && now.isAfter(this.plannedAt)) {
				lag.accept(Duration.between(this.plannedAt, now));
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
			Instant notAfter = expiresAt.minusMillis(effectiveMarginMs(this.context));
			LeaseRenewalScheduler.this.enqueue(new DueRenewal(this, notAfter));
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
			Instant now = LeaseRenewalScheduler.this.clock.instant();
			long untilMargin = Duration.between(now, this.context.expiresAt()).toMillis()
					- effectiveMarginMs(this.context);
			if (untilMargin <= 0) {
				lose((result.code() == ResultCode.LEASE_OUTCOME_UNKNOWN) ? Reason.REPLY_LOST : Reason.BACKEND_UNREACHABLE);
				return;
			}
			logger.warn("Lease renewal failed ({}), retrying before the safety margin: {}", result.code().wireName(),
					this.context);
			schedule(Math.min(untilMargin, Math.max(MIN_DELAY_MS, this.context.lease().ttlMs() / 10)));
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
			try {
				LeaseRenewalScheduler.this.listener.leaseLost(new LeaseLostEvent(this.context, reason));
			}
			catch (RuntimeException ex) {
				logger.error("LeaseLostListener failed", ex);
			}
			try {
				this.cancellation.run();
			}
			catch (RuntimeException ex) {
				logger.error("Job cancellation failed", ex);
			}
		}

	}

}
