package io.starintel.lease.audit.internal;

import java.time.Duration;
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
 */
public final class AsyncAuditPipeline implements AutoCloseable {

	/** Counter of routine audit events dropped because the queue was full. */
	public static final String DROPPED_COUNTER = "starintel.lease.audit.dropped";

	private static final Logger logger = LoggerFactory.getLogger(AsyncAuditPipeline.class);

	/**
	 * Lock-free: producers (lease operations on any thread) never take a lock and wake the worker only when it is
	 * parked, so a busy pipeline costs no context switch per event; {@link #size} bounds it.
	 */
	private final Queue<AuditEvent> queue = new ConcurrentLinkedQueue<>();

	private final AtomicInteger size = new AtomicInteger();

	private final int capacity;

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
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be positive");
		}
		this.capacity = capacity;
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
		if (this.running) {
			if (this.size.incrementAndGet() <= this.capacity) {
				this.queue.offer(event);
				if (this.parked) {
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

	/** Events waiting. */
	public int backlog() {
		return this.size.get();
	}

	private void drain() {
		while (this.running || !this.queue.isEmpty()) {
			AuditEvent event = this.queue.poll();
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
				continue;
			}
			this.size.decrementAndGet();
			for (AuditSink sink : this.sinks) {
				try {
					sink.record(event);
				}
				catch (RuntimeException ex) {
					failed(sink, event, ex);
				}
			}
			this.delivered.incrementAndGet();
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
