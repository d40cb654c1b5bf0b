package io.starintel.lease.job.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planned renewal ticks of every lease of a {@link LeaseRenewalScheduler}, in due order, with one executor task
 * pending for the earliest. Planning a tick that is not the earliest, and cancelling one, only touch this queue: a
 * job that starts and ends within its renewal interval (the common case) neither wakes a renewal thread nor adds or
 * removes an executor task, each of which costs a thread wake-up on the job's path. The pending task, when it runs,
 * runs every due tick and leaves one task pending for the next earliest; a tick planned earlier than the pending task
 * gets a task of its own, and a task left over from an earlier plan finds nothing due and ends.
 */
final class RenewalTimer {

	private static final Logger logger = LoggerFactory.getLogger(RenewalTimer.class);

	private static final Comparator<Planned> DUE_ORDER = Comparator.comparingLong((Planned planned) -> planned.due)
		.thenComparingLong((planned) -> planned.sequence);

	private final ScheduledExecutorService executor;

	private final Object lock = new Object();

	/** Planned ticks by due time ({@link System#nanoTime()}); guarded by {@link #lock}. */
	private final TreeSet<Planned> queue = new TreeSet<>(DUE_ORDER);

	/** Whether an executor task is pending for {@link #wakeAt}; guarded by {@link #lock}. */
	private boolean wakePending;

	/** The due time of the earliest pending executor task, when {@link #wakePending}; guarded by {@link #lock}. */
	private long wakeAt;

	private long sequence;

	RenewalTimer(ScheduledExecutorService executor) {
		this.executor = executor;
	}

	/** A planned tick; {@link #cancel()} removes it. */
	final class Planned {

		private final Runnable tick;

		private final long due;

		private final long sequence;

		private Planned(Runnable tick, long due, long sequence) {
			this.tick = tick;
			this.due = due;
			this.sequence = sequence;
		}

		/**
		 * Removes the tick unless it already ran (no executor call, no thread wake-up).
		 * @return whether it was removed before it ran
		 */
		boolean cancel() {
			synchronized (RenewalTimer.this.lock) {
				return RenewalTimer.this.queue.remove(this);
			}
		}

	}

	/**
	 * Plans a tick {@code delayMs} from now.
	 * @throws RejectedExecutionException once the executor is shut down
	 */
	Planned plan(Runnable tick, long delayMs) {
		if (this.executor.isShutdown()) {
			throw new RejectedExecutionException("renewal scheduler closed");
		}
		long delay = Math.max(0, delayMs);
		synchronized (this.lock) {
			Planned planned = new Planned(tick, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay),
					this.sequence++);
			this.queue.add(planned);
			if (!this.wakePending || planned.due - this.wakeAt < 0) {
				try {
					this.executor.schedule(this::wake, delay, TimeUnit.MILLISECONDS);
				}
				catch (RejectedExecutionException ex) {
					this.queue.remove(planned);
					throw ex;
				}
				this.wakePending = true;
				this.wakeAt = planned.due;
			}
			return planned;
		}
	}

	/** Drops every planned tick (the scheduler closed). */
	void clear() {
		synchronized (this.lock) {
			this.queue.clear();
		}
	}

	/** Runs every due tick, leaving one executor task pending for the next earliest. */
	private void wake() {
		List<Planned> due = new ArrayList<>();
		synchronized (this.lock) {
			long now = System.nanoTime();
			while (!this.queue.isEmpty() && this.queue.first().due - now <= 0) {
				due.add(this.queue.pollFirst());
			}
			if (this.wakePending && this.wakeAt - now <= 0) {
				this.wakePending = false; // this is the pending task (or runs after it): plan the next one
			}
			if (!this.queue.isEmpty()) {
				long next = this.queue.first().due;
				if (!this.wakePending || next - this.wakeAt < 0) {
					long delayNanos = Math.max(0, next - now);
					try {
						this.executor.schedule(this::wake, delayNanos, TimeUnit.NANOSECONDS);
						this.wakePending = true;
						this.wakeAt = next;
					}
					catch (RejectedExecutionException ex) {
						// closed meanwhile: nothing renews any more (the scheduler's close clears the queue)
					}
				}
			}
		}
		for (Planned planned : due) {
			try {
				planned.tick.run();
			}
			catch (RuntimeException ex) {
				logger.error("Lease renewal tick failed", ex);
			}
		}
	}

}
