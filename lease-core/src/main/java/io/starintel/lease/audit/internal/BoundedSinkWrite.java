package io.starintel.lease.audit.internal;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditSink;

/**
 * The one rule for a write to an audit sink that a request waits for: it waits at most the time left to the request's
 * deadline. A sink that bounds its own wait ({@link AuditSink#recordWithin} overridden, as the Redis stream sink does)
 * and every non-durable sink are called directly. A durable sink that does not (an application's own, implementing only
 * {@link AuditSink#record}) is called on a thread of a small pool of its own and waited for at most the time left: a
 * write not done by then (it may still land), one that finds no thread free (the pool's threads all held by writes
 * that never returned) and one that throws an {@link Error} count as not persisted ({@link AuditWriteException}), so
 * a stuck sink can neither hold an admin request past its deadline nor let it report success.
 */
public final class BoundedSinkWrite {

	/** The most writes of unbounded durable sinks in flight at once (those stuck included). */
	static final int THREADS = 4;

	private static final ClassValue<Boolean> BOUNDS_ITS_WAIT = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			try {
				return type.getMethod("recordWithin", AuditEvent.class, Duration.class)
					.getDeclaringClass() != AuditSink.class;
			}
			catch (NoSuchMethodException ex) {
				return false;
			}
		}

	};

	private static final ThreadPoolExecutor POOL = pool();

	private BoundedSinkWrite() {
	}

	/**
	 * Records {@code event} in {@code sink} for a caller that waits at most {@code within}.
	 * @throws AuditWriteException when a durable sink did not persist the event in time (or failed)
	 */
	public static void recordWithin(AuditSink sink, AuditEvent event, Duration within) {
		if (!sink.isDurable() || BOUNDS_ITS_WAIT.get(sink.getClass())) {
			sink.recordWithin(event, within);
			return;
		}
		if (within.isNegative() || within.isZero()) {
			throw new AuditWriteException("audit sink write not sent: the request's deadline has passed");
		}
		Future<?> write;
		try {
			write = POOL.submit(() -> sink.record(event));
		}
		catch (RejectedExecutionException ex) {
			throw new AuditWriteException("audit sink write not sent: every audit sink thread is held by a write");
		}
		try {
			write.get(saturatedNanos(within), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new AuditWriteException("audit sink write not confirmed in time");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AuditWriteException("audit sink write not confirmed: interrupted");
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new AuditWriteException("audit sink write failed");
		}
	}

	private static long saturatedNanos(Duration within) {
		try {
			return within.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	private static ThreadPoolExecutor pool() {
		AtomicInteger count = new AtomicInteger();
		return new ThreadPoolExecutor(0, THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
			Thread thread = new Thread(task, "starintel-audit-sink-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

}
