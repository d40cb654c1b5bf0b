package io.starintel.lease.job.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.Reason;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;

/**
 * Gathers the renewals that fall due into batched store calls: due renewals are sent together, grouped per program by
 * the store ({@link LeaseService#renewAll}), at most {@link #BATCH_SIZE} per call and {@link #MAX_BATCHES_IN_FLIGHT}
 * calls at once.
 */
final class RenewalBatcher {

	private static final Logger logger = LoggerFactory.getLogger(LeaseRenewalScheduler.class);

	/** How long due renewals are gathered before a batch is sent (small against any safety margin). */
	private static final long BATCH_WINDOW_MS = 20;

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

	private final LeaseService service;

	private final ScheduledExecutorService scheduling;

	private final Queue<DueRenewal> due = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean batchScheduled = new AtomicBoolean();

	/** Renewals in {@link #due} (the queue's own size is not constant-time). */
	private final AtomicInteger dueCount = new AtomicInteger();

	private final Semaphore inFlight = new Semaphore(MAX_BATCHES_IN_FLIGHT);

	private final ExecutorService batches;

	RenewalBatcher(LeaseService service, ScheduledExecutorService scheduling) {
		this.service = service;
		this.scheduling = scheduling;
		AtomicInteger batchCount = new AtomicInteger();
		this.batches = Executors.newFixedThreadPool(MAX_BATCHES_IN_FLIGHT, (runnable) -> {
			Thread thread = new Thread(runnable, "starintel-lease-renewal-batch-" + batchCount.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/** A renewal that is due, waiting for the next batch. */
	private record DueRenewal(LeaseRenewal renewal, Instant notAfter) {
	}

	/** Queues a due renewal (its deadline {@code notAfter}) and makes sure a batch runs. */
	void enqueue(LeaseRenewal renewal, Instant notAfter) {
		this.due.add(new DueRenewal(renewal, notAfter));
		this.dueCount.incrementAndGet();
		if (this.batchScheduled.compareAndSet(false, true)) {
			try {
				// a short window gathers the renewals that fall due together into one batch
				this.scheduling.schedule(this::renewDue, BATCH_WINDOW_MS, TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.batchScheduled.set(false);
				renewal.lose(Reason.BACKEND_UNREACHABLE); // scheduler shut down
			}
		}
	}

	/** Stops the batch calls. */
	void shutdownNow() {
		this.batches.shutdownNow();
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
					due.renewal().lose(Reason.BACKEND_UNREACHABLE); // scheduler shut down
				}
				return;
			}
		}
	}

	private void runBatch(List<DueRenewal> queued) {
		try {
			List<DueRenewal> batch = new ArrayList<>(queued.size());
			for (DueRenewal due : queued) {
				if (due.renewal().claimForBatch()) { // a lease whose job ended (and is releasing) is not renewed
					batch.add(due);
				}
			}
			if (batch.isEmpty()) {
				return;
			}
			List<LeaseResult> results;
			try {
				List<RenewRequest> requests = new ArrayList<>(batch.size());
				Instant deadline = this.service.deadline();
				for (DueRenewal due : batch) {
					// the deadline is brought forward to expires_at minus the safety margin, so that a backend that
					// does not answer is noticed before the lease expires
					Instant notAfter = due.notAfter().isBefore(deadline) ? due.notAfter() : deadline;
					LeaseContext context = due.renewal().context();
					requests.add(new RenewRequest(context.handle(), this.service.newId(), notAfter, null,
							RequestCaller.holderOf(context.lease())));
				}
				results = this.service.renewAll(requests);
			}
			finally {
				// every answer is in (or the batch failed) before any is handled: a loss handled below may end a job
				// of this same batch, whose release must not wait for this thread
				for (DueRenewal due : batch) {
					due.renewal().batchAnswered();
				}
			}
			for (int i = 0; i < batch.size(); i++) {
				try {
					batch.get(i).renewal().renewed(results.get(i));
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
					this.scheduling.schedule(this::renewDue, delayMs, TimeUnit.MILLISECONDS);
				}
				catch (RejectedExecutionException ex) {
					this.batchScheduled.set(false);
				}
			}
		}
	}

}
