package io.starintel.lease.job.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.job.LeaseLostListener;
import io.starintel.lease.service.LeaseService;

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

	private final Clock clock;

	private final Duration safetyMargin;

	private final LeaseLostListener listener;

	private final ScheduledThreadPoolExecutor executor;

	private final RenewalTimer timer;

	private final RenewalBatcher batcher;

	private final LeaseService service;

	private final Set<LeaseRenewal> held = ConcurrentHashMap.newKeySet();

	private volatile @Nullable Consumer<Duration> lagRecorder;

	private final Object heldMonitor = new Object();

	/**
	 * A scheduler.
	 * @param service the lease service used to renew
	 * @param clock local clock (advisory: compared with the backend's {@code expires_at} only to decide loss early)
	 * @param safetyMargin how long before expiry an unanswered renewal counts as loss (capped at {@code ttl/3})
	 * @param listener receives loss events
	 * @param threads size of the scheduling pool (1-2 is plenty: the batch calls themselves run on up to
	 * {@value RenewalBatcher#MAX_BATCHES_IN_FLIGHT} threads of their own)
	 */
	public LeaseRenewalScheduler(LeaseService service, Clock clock, Duration safetyMargin, LeaseLostListener listener,
			int threads) {
		Objects.requireNonNull(service, "service");
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
		this.timer = new RenewalTimer(this.executor);
		this.batcher = new RenewalBatcher(service, this.executor);
		this.service = service;
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
	 * @return the renewal; close it when the job ends (before releasing)
	 */
	public LeaseRenewal register(LeaseContext context, Runnable cancellation) {
		LeaseRenewal renewal = new LeaseRenewal(this, context, cancellation);
		context.renewer((renewed, ttl) -> renewal.renewNow(ttl));
		this.held.add(renewal);
		renewal.scheduleNext();
		return renewal;
	}

	/**
	 * The lease {@code leaseId} was ended by an administrator of this JVM (or may have been): when this JVM holds it,
	 * its renewal runs at once, and the answer ({@code lease_lost}) cancels the job now rather than at the next renewal
	 * (a third of the TTL later). Never blocks; a lease this JVM does not hold is ignored. Wired to
	 * {@link LeaseService#onAdministrativeEnd}.
	 */
	public void renewSoon(String leaseId) {
		for (LeaseRenewal renewal : this.held) {
			if (renewal.context().lease().leaseId().equals(leaseId)) {
				renewal.renewSoon();
			}
		}
	}

	/** A snapshot of the leases this JVM currently holds and renews. */
	public List<LeaseRenewal> registrations() {
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
		this.timer.clear();
		this.batcher.shutdownNow();
		this.held.clear();
	}

	Clock clock() {
		return this.clock;
	}

	/** One renewal of a context now with a new TTL ({@link LeaseContext#renew}), on the caller's thread. */
	LeaseResult renewNow(LeaseContext context, long ttlMs) {
		return this.service.renew(new RenewRequest(context.handle(), this.service.newId(), this.service.deadline(),
				ttlMs, RequestCaller.holderOf(context.lease())));
	}

	/** The margin before expiry at which an unanswered renewal counts as loss (at most a third of the TTL). */
	long marginMs(LeaseContext context) {
		return Math.min(this.safetyMargin.toMillis(), context.ttlMs() / 3);
	}

	/** Plans a renewal's next tick (throws {@code RejectedExecutionException} once closed). */
	RenewalTimer.Planned schedule(Runnable tick, long delayMs) {
		return this.timer.plan(tick, delayMs);
	}

	/** Queues a due renewal for the next batch. */
	void enqueue(LeaseRenewal renewal, Instant notAfter) {
		this.batcher.enqueue(renewal, notAfter);
	}

	void recordLag(Duration lag) {
		Consumer<Duration> recorder = this.lagRecorder;
		if (recorder != null) {
			recorder.accept(lag);
		}
	}

	/** A renewal stopped (its job ended or its lease was lost): no longer held. */
	void ended(LeaseRenewal renewal) {
		this.held.remove(renewal);
		synchronized (this.heldMonitor) {
			this.heldMonitor.notifyAll();
		}
	}

	void publishLoss(LeaseLostEvent event) {
		try {
			this.listener.leaseLost(event);
		}
		catch (RuntimeException ex) {
			logger.error("LeaseLostListener failed", ex);
		}
	}

}
