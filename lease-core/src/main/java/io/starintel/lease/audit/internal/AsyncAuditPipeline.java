package io.starintel.lease.audit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/**
 * The routine audit path: a bounded queue drained by one daemon thread that hands each event to every sink.
 *
 * <p>{@link #submit(AuditEvent)} never waits: when the queue is full the event is dropped, counted (the
 * {@code starintel.lease.audit.dropped} counter, through the drop recorder) and reported in a WARN line at most once
 * per interval with the number dropped since the last line. A sink that blocks (a Redis stream write while Redis is
 * silent) therefore only delays this thread, never a renewal, acquisition, release or fenced commit. Sink failures
 * are logged at most once per interval as well, with the sink's class and the exception type only.
 *
 * <p>Delivery is batched: the first event that finds the thread parked wakes it, and the thread then lets the queue
 * gather for {@value #LINGER_MILLIS} ms before handing everything queued to the sinks. A busy lease thread therefore
 * pays one wake-up per batch rather than one per event (a futex call and a context switch on each side), and the sinks
 * run back to back on a warm thread. A backlog of half the capacity wakes the thread at once, so batching never adds
 * drops; an event is delivered within the linger time plus the sinks' own time. The sinks receive up to {@value #BATCH}
 * events at once ({@link AuditSink#recordAll}): the Redis stream sink writes a batch in one round trip.
 */
public final class AsyncAuditPipeline implements AutoCloseable {

	/** Counter of routine audit events dropped because the queue was full. */
	public static final String DROPPED_COUNTER = "starintel.lease.audit.dropped";

	/** Most events handed to the sinks at once. */
	static final int BATCH = 256;

	/** How long the woken thread lets events gather before delivering them. */
	static final long LINGER_MILLIS = 10;

	private static final Logger logger = LoggerFactory.getLogger(AsyncAuditPipeline.class);

	/**
	 * Lock-free: producers (lease operations on any thread) never take a lock and wake the worker only when it is
	 * parked, so a busy pipeline costs no context switch per event; {@link #size} bounds it.
	 */
	private final Queue<Object> queue = new ConcurrentLinkedQueue<>();

	private final AtomicInteger size = new AtomicInteger();

	private final int capacity;

	/** The backlog at which a producer wakes the thread even while it lingers. */
	private final int wakeBacklog;

	private final long lingerNanos;

	private volatile boolean parked;

	private final List<AuditSink> sinks;

	private final long intervalNanos;

	private final LongConsumer dropRecorder;

	private final AtomicLong dropped = new AtomicLong();

	private final AtomicLong droppedSinceLog = new AtomicLong();

	private final AtomicLong lastDropLog = new AtomicLong(Long.MIN_VALUE);

	private final AtomicLong lastFailureLog = new AtomicLong(Long.MIN_VALUE);

	private final AtomicLong delivered = new AtomicLong();

	private final Thread worker;

	private volatile boolean running = true;

	/**
	 * Starts the pipeline's thread.
	 * @param sinks where events go, in order
	 * @param capacity queue bound
	 * @param logInterval at most one drop line and one failure line per interval
	 * @param dropRecorder called with 1 for every dropped event (a Micrometer counter)
	 */
	public AsyncAuditPipeline(List<AuditSink> sinks, int capacity, Duration logInterval, LongConsumer dropRecorder) {
		this(sinks, capacity, logInterval, dropRecorder, Duration.ofMillis(LINGER_MILLIS));
	}

	/** As the public constructor, with another linger time (tests). */
	AsyncAuditPipeline(List<AuditSink> sinks, int capacity, Duration logInterval, LongConsumer dropRecorder,
			Duration linger) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be positive");
		}
		this.capacity = capacity;
		this.wakeBacklog = Math.max(1, capacity / 2);
		this.lingerNanos = linger.toNanos();
		this.sinks = List.copyOf(sinks);
		this.intervalNanos = logInterval.toNanos();
		this.dropRecorder = dropRecorder;
		this.worker = new Thread(this::drain, "starintel-lease-audit");
		this.worker.setDaemon(true);
		this.worker.start();
	}

	/** The sinks events are handed to. */
	public List<AuditSink> sinks() {
		return this.sinks;
	}

	/** Queues the event, or drops and counts it when the queue is full; never blocks. */
	public void submit(AuditEvent event) {
		enqueue(event);
	}

	/**
	 * As {@link #submit}, for the sinks that are not durable only: an admin refusal that names a program outside the
	 * caller's scope (a caller must not create audit streams for programs it may not see).
	 */
	public void submitExceptDurable(AuditEvent event) {
		enqueue(new NotDurable(event));
	}

	/** An event no durable sink receives. */
	private record NotDurable(AuditEvent event) {
	}

	private void enqueue(Object entry) {
		if (this.running) {
			int backlog = this.size.incrementAndGet();
			if (backlog <= this.capacity) {
				this.queue.offer(entry);
				if (this.parked || backlog == this.wakeBacklog) {
					LockSupport.unpark(this.worker);
				}
				return;
			}
			this.size.decrementAndGet();
		}
		this.dropped.incrementAndGet();
		this.droppedSinceLog.incrementAndGet();
		this.dropRecorder.accept(1);
		long now = System.nanoTime();
		long last = this.lastDropLog.get();
		if ((last == Long.MIN_VALUE || now - last >= this.intervalNanos) && this.lastDropLog.compareAndSet(last, now)) {
			logger.warn("Audit queue full: {} routine audit events dropped since the last report ({} in total)",
					this.droppedSinceLog.getAndSet(0), this.dropped.get());
		}
	}

	/** Events dropped so far. */
	public long droppedCount() {
		return this.dropped.get();
	}

	/** Events handed to the sinks so far. */
	public long deliveredCount() {
		return this.delivered.get();
	}

	/** Whether the thread is parked waiting for an event (tests). */
	boolean idle() {
		return this.parked;
	}

	/** Events waiting. */
	public int backlog() {
		return this.size.get();
	}

	private void drain() {
		List<Object> batch = new ArrayList<>(BATCH);
		while (this.running || !this.queue.isEmpty()) {
			Object event = this.queue.poll();
			if (event == null) {
				this.parked = true;
				// re-checked after announcing the park: an event offered meanwhile is seen here or unparks us
				if (this.queue.isEmpty() && this.running) {
					LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(200));
				}
				this.parked = false;
				if (Thread.interrupted()) {
					return;
				}
				linger();
				continue;
			}
			batch.add(event);
			while (batch.size() < BATCH && (event = this.queue.poll()) != null) {
				batch.add(event);
			}
			this.size.addAndGet(-batch.size());
			deliver(batch);
			this.delivered.addAndGet(batch.size());
			batch.clear();
		}
	}

	/**
	 * Hands one batch to every sink. A sink that fails is reported (at most once per interval) and not retried: its
	 * backend is likely down, and a retry per event would hold up the other sinks for as long again.
	 */
	private void deliver(List<Object> batch) {
		List<AuditEvent> all = new ArrayList<>(batch.size());
		List<AuditEvent> durable = new ArrayList<>(batch.size());
		for (Object entry : batch) {
			if (entry instanceof NotDurable notDurable) {
				all.add(notDurable.event());
			}
			else {
				AuditEvent event = (AuditEvent) entry;
				all.add(event);
				durable.add(event);
			}
		}
		for (AuditSink sink : this.sinks) {
			List<AuditEvent> events = sink.isDurable() ? durable : all;
			if (events.isEmpty()) {
				continue;
			}
			try {
				sink.recordAll(events);
			}
			catch (RuntimeException ex) {
				failed(sink, events.get(0), ex);
			}
		}
	}

	/**
	 * Lets a batch gather after a wake-up: no producer wakes this thread meanwhile (it is not {@link #parked}), except
	 * at a backlog of half the capacity or on {@link #close()}.
	 */
	private void linger() {
		if (!this.running || this.queue.isEmpty()) {
			return;
		}
		long until = System.nanoTime() + this.lingerNanos;
		long left = this.lingerNanos;
		while (left > 0 && this.running && this.size.get() < this.wakeBacklog
				&& !Thread.currentThread().isInterrupted()) {
			LockSupport.parkNanos(this, left);
			left = until - System.nanoTime();
		}
	}

	private void failed(AuditSink sink, AuditEvent event, RuntimeException ex) {
		long now = System.nanoTime();
		long last = this.lastFailureLog.get();
		if ((last == Long.MIN_VALUE || now - last >= this.intervalNanos)
				&& this.lastFailureLog.compareAndSet(last, now)) {
			logger.warn("Audit sink {} failed for {} ({}); further failures within the interval are not logged",
					sink.getClass().getName(), event.eventType().wireName(), ex.getClass().getSimpleName());
		}
	}

	/** Stops taking events, lets the thread deliver what is queued for up to two seconds, then stops it. */
	@Override
	public void close() {
		this.running = false;
		LockSupport.unpark(this.worker);
		try {
			this.worker.join(2000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (this.worker.isAlive()) {
			this.worker.interrupt();
		}
	}

}
