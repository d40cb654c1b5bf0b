package io.starintel.lease.audit.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
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
 * are logged at most once per interval as well, with the sink's class and the exception type only. A durable sink's
 * failed events are sent to it again, in order and ahead of later ones, with a back-off, for up to the retry window;
 * then (or beyond the capacity) they are counted as failed ({@value #FAILED_COUNTER}) and reported in a WARN line.
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

	/** The first wait before a durable sink's unconfirmed events are sent again (doubling, up to the maximum). */
	static final long FIRST_RETRY_MILLIS = 100;

	/** The longest wait between two attempts of a durable sink. */
	static final long MAX_RETRY_MILLIS = 2_000;

	/** Counter of routine audit events a durable sink did not confirm within the retry window. */
	public static final String FAILED_COUNTER = "starintel.lease.audit.failed";

	/** Gauge of routine audit events held for a durable sink that failed, to be sent to it again. */
	public static final String UNCONFIRMED_GAUGE = "starintel.lease.audit.unconfirmed";

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

	private final AtomicLong lastGiveUpLog = new AtomicLong(Long.MIN_VALUE);

	private final AtomicLong delivered = new AtomicLong();

	private final LongConsumer failRecorder;

	private final long retryWindowNanos;

	private final AtomicLong failed = new AtomicLong();

	/** Each durable sink's events not confirmed yet (only the worker thread touches it). */
	private final Map<AuditSink, Unconfirmed> unconfirmed = new IdentityHashMap<>();

	/** The events held in {@link #unconfirmed}, for other threads. */
	private volatile int unconfirmedCount;

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
		this(sinks, capacity, logInterval, dropRecorder, (count) -> {
		}, Duration.ofMinutes(1));
	}

	/**
	 * Starts the pipeline's thread.
	 * @param sinks where events go, in order
	 * @param capacity queue bound (and the most events held for each durable sink while it fails)
	 * @param logInterval at most one drop line and one failure line per interval
	 * @param dropRecorder called with 1 for every dropped event (a Micrometer counter)
	 * @param failRecorder called with the number of events a durable sink did not confirm within the retry window
	 * @param retryWindow how long a durable sink's unconfirmed events are sent again before they count as failed
	 */
	public AsyncAuditPipeline(List<AuditSink> sinks, int capacity, Duration logInterval, LongConsumer dropRecorder,
			LongConsumer failRecorder, Duration retryWindow) {
		this(sinks, capacity, logInterval, dropRecorder, failRecorder, retryWindow, Duration.ofMillis(LINGER_MILLIS));
	}

	/** As the public constructor, with another linger time (tests). */
	AsyncAuditPipeline(List<AuditSink> sinks, int capacity, Duration logInterval, LongConsumer dropRecorder,
			Duration linger) {
		this(sinks, capacity, logInterval, dropRecorder, (count) -> {
		}, Duration.ofMinutes(1), linger);
	}

	private AsyncAuditPipeline(List<AuditSink> sinks, int capacity, Duration logInterval, LongConsumer dropRecorder,
			LongConsumer failRecorder, Duration retryWindow, Duration linger) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be positive");
		}
		if (retryWindow.isNegative()) {
			throw new IllegalArgumentException("retryWindow must not be negative");
		}
		this.failRecorder = failRecorder;
		this.retryWindowNanos = retryWindow.toNanos();
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

	/**
	 * Waits, at most {@code timeout}, until every event submitted before this call has been handed to every sink
	 * (a durable sink that failed keeps its events for a later attempt: handed, not confirmed). Returns whether they
	 * were; {@code false} when the time ran out or the pipeline is closed. For a test kit that forgets the events it
	 * captured between two tests: what one test's operations submitted must not be delivered into the next test.
	 */
	public boolean flush(Duration timeout) {
		if (!this.running) {
			return false;
		}
		Flush flush = new Flush();
		// a marker, not an event: never dropped, never handed to a sink, not counted as delivered
		this.size.incrementAndGet();
		this.queue.offer(flush);
		LockSupport.unpark(this.worker);
		try {
			return flush.done.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** The place of a {@link #flush} in the queue: done once the events ahead of it were handed to the sinks. */
	private static final class Flush {

		final CountDownLatch done = new CountDownLatch(1);

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

	/** Events a durable sink did not confirm within the retry window (or that did not fit while it failed). */
	public long failedCount() {
		return this.failed.get();
	}

	/** Events held for a durable sink that failed, to be sent to it again. */
	public int unconfirmedCount() {
		return this.unconfirmedCount;
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
				if (retryDue(System.nanoTime())) {
					deliver(batch); // nothing new: a durable sink's unconfirmed events, sent again
					continue;
				}
				this.parked = true;
				// re-checked after announcing the park: an event offered meanwhile is seen here or unparks us
				if (this.queue.isEmpty() && this.running) {
					LockSupport.parkNanos(this, parkNanos(System.nanoTime()));
				}
				this.parked = false;
				if (Thread.interrupted()) {
					giveUpUnconfirmed();
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
			int flushes = 0;
			for (Object entry : batch) {
				if (entry instanceof Flush flush) {
					flush.done.countDown();
					flushes++;
				}
			}
			this.delivered.addAndGet(batch.size() - flushes);
			batch.clear();
		}
		// closing: one last attempt for what a durable sink has not confirmed, whatever its back-off
		this.unconfirmed.values().forEach((held) -> held.retryAt = System.nanoTime());
		deliver(batch);
		giveUpUnconfirmed();
	}

	/**
	 * Hands one batch to every sink. A sink that is not durable and fails is reported (at most once per interval) and
	 * not retried. A durable sink that fails keeps its events: they go to it again, ahead of later ones and in their
	 * order, after a back-off ({@value #FIRST_RETRY_MILLIS} ms doubling up to {@value #MAX_RETRY_MILLIS} ms, during
	 * which its new events wait behind them rather than hold up the other sinks with another failing call), until it
	 * confirms them or the retry window since its first failure has passed; then they count as failed. A sink may
	 * therefore receive an event again that it had written without confirming (a timeout after the write): durable
	 * audit is at least once.
	 */
	private void deliver(List<Object> batch) {
		List<AuditEvent> all = new ArrayList<>(batch.size());
		List<AuditEvent> durable = new ArrayList<>(batch.size());
		List<AuditEvent> unkept = new ArrayList<>();
		for (Object entry : batch) {
			if (entry instanceof Flush) {
				continue;
			}
			if (entry instanceof NotDurable notDurable) {
				all.add(notDurable.event());
				unkept.add(notDurable.event());
			}
			else {
				AuditEvent event = (AuditEvent) entry;
				all.add(event);
				durable.add(event);
				if (event.scope() == null) {
					unkept.add(event);
				}
			}
		}
		for (AuditSink sink : this.sinks) {
			if (sink.isDurable()) {
				deliverDurable(sink, durable);
				continue;
			}
			if (all.isEmpty()) {
				continue;
			}
			try {
				if (sink instanceof UnkeptEventsSink unkeptOnly) {
					unkeptOnly.recordUnkept(unkept);
				}
				else {
					sink.recordAll(all);
				}
			}
			catch (RuntimeException ex) {
				failed(sink, all.get(0), ex);
			}
		}
		countUnconfirmed();
	}

	private void countUnconfirmed() {
		int count = 0;
		for (Unconfirmed held : this.unconfirmed.values()) {
			count += held.events.size();
		}
		this.unconfirmedCount = count;
	}

	/** A durable sink's unconfirmed events first, then {@code events}, in batches; what fails is kept for a retry. */
	private void deliverDurable(AuditSink sink, List<AuditEvent> events) {
		Unconfirmed held = this.unconfirmed.get(sink);
		if (held == null) {
			if (events.isEmpty()) {
				return;
			}
			try {
				sink.recordAll(events);
				return;
			}
			catch (RuntimeException ex) {
				failed(sink, events.get(0), ex);
				List<AuditEvent> left = unconfirmedOf(events, ex);
				if (left.isEmpty()) {
					return;
				}
				held = new Unconfirmed(System.nanoTime());
				this.unconfirmed.put(sink, held);
				hold(held, left);
				return;
			}
		}
		hold(held, events);
		long now = System.nanoTime();
		if (now - held.retryAt < 0) {
			return;
		}
		while (!held.events.isEmpty()) {
			List<AuditEvent> part = new ArrayList<>(Math.min(BATCH, held.events.size()));
			for (AuditEvent event : held.events) {
				part.add(event);
				if (part.size() == BATCH) {
					break;
				}
			}
			try {
				sink.recordAll(part);
			}
			catch (RuntimeException ex) {
				failed(sink, part.get(0), ex);
				// what the sink confirmed of the part is not sent again; the rest stays first, in its order
				List<AuditEvent> left = unconfirmedOf(part, ex);
				for (int i = 0; i < part.size(); i++) {
					held.events.pollFirst();
				}
				for (int i = left.size() - 1; i >= 0; i--) {
					held.events.addFirst(left.get(i));
				}
				if (held.events.isEmpty()) {
					break;
				}
				long at = System.nanoTime();
				if (at - held.since > this.retryWindowNanos) {
					giveUp(held.events.size());
					this.unconfirmed.remove(sink);
					return;
				}
				held.attempts++;
				held.retryAt = at + TimeUnit.MILLISECONDS
					.toNanos(Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << Math.min(held.attempts - 1, 20)));
				return;
			}
			for (int i = 0; i < part.size(); i++) {
				held.events.pollFirst();
			}
		}
		this.unconfirmed.remove(sink);
	}

	/** The events of a batch a durable sink did not confirm ({@link AuditWriteException#confirmed()}), in order. */
	private static List<AuditEvent> unconfirmedOf(List<AuditEvent> batch, RuntimeException failure) {
		if (!(failure instanceof AuditWriteException write) || write.confirmed().isEmpty()) {
			return batch;
		}
		BitSet confirmed = write.confirmed();
		List<AuditEvent> left = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			if (!confirmed.get(i)) {
				left.add(batch.get(i));
			}
		}
		return left;
	}

	/** Appends events to a failing sink's held ones; beyond the capacity the oldest count as failed. */
	private void hold(Unconfirmed held, List<AuditEvent> events) {
		held.events.addAll(events);
		int over = held.events.size() - this.capacity;
		for (int i = 0; i < over; i++) {
			held.events.pollFirst();
		}
		if (over > 0) {
			giveUp(over);
		}
	}

	/** Whether a durable sink's unconfirmed events are due to be sent again. */
	private boolean retryDue(long now) {
		for (Unconfirmed held : this.unconfirmed.values()) {
			if (now - held.retryAt >= 0) {
				return true;
			}
		}
		return false;
	}

	/** How long the idle thread parks: 200 ms, or until a durable sink's next retry. */
	private long parkNanos(long now) {
		long park = TimeUnit.MILLISECONDS.toNanos(200);
		for (Unconfirmed held : this.unconfirmed.values()) {
			park = Math.min(park, Math.max(1, held.retryAt - now));
		}
		return park;
	}

	private void giveUpUnconfirmed() {
		this.unconfirmed.values().forEach((held) -> giveUp(held.events.size()));
		this.unconfirmed.clear();
		this.unconfirmedCount = 0;
	}

	private void giveUp(int count) {
		if (count <= 0) {
			return;
		}
		long total = this.failed.addAndGet(count);
		this.failRecorder.accept(count);
		long now = System.nanoTime();
		long last = this.lastGiveUpLog.get();
		if ((last == Long.MIN_VALUE || now - last >= this.intervalNanos) && this.lastGiveUpLog.compareAndSet(last, now)) {
			logger.warn("{} routine audit events not confirmed by a durable sink within the retry window ({} in total); "
					+ "further losses within the interval are not logged", count, total);
		}
	}

	/** A durable sink's events not confirmed yet, and when they go again. */
	private static final class Unconfirmed {

		final ArrayDeque<AuditEvent> events = new ArrayDeque<>();

		/** The first failure ({@link System#nanoTime()}). */
		final long since;

		/** When the events go again ({@link System#nanoTime()}). */
		long retryAt;

		int attempts = 1;

		Unconfirmed(long since) {
			this.since = since;
			this.retryAt = since + TimeUnit.MILLISECONDS.toNanos(FIRST_RETRY_MILLIS);
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
