package io.starintel.lease.job.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link RenewalTimer}: ticks run once each, in due order, cancelled ones never; and planning or cancelling a tick
 * that is not the earliest adds no executor task (the job's path wakes no renewal thread).
 */
class RenewalTimerTests {

	private final CountingExecutor executor = new CountingExecutor();

	private final RenewalTimer timer = new RenewalTimer(this.executor);

	private final List<String> ran = new CopyOnWriteArrayList<>();

	/** Counts the tasks handed to it (each one a possible wake-up of its thread). */
	static final class CountingExecutor extends ScheduledThreadPoolExecutor {

		final AtomicInteger scheduled = new AtomicInteger();

		CountingExecutor() {
			super(1);
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
			this.scheduled.incrementAndGet();
			return super.schedule(command, delay, unit);
		}

	}

	@AfterEach
	void close() {
		this.executor.shutdownNow();
	}

	@Test
	void aTickThatIsNotTheEarliestAddsNoExecutorTask() {
		this.executor.setRemoveOnCancelPolicy(true);
		this.timer.plan(() -> this.ran.add("first"), 60_000);
		assertThat(this.executor.scheduled).hasValue(1);
		// the jobs that start and end within their renewal interval: planned later than the pending task, cancelled
		for (int i = 0; i < 100; i++) {
			String name = "job-" + i;
			this.timer.plan(() -> this.ran.add(name), 120_000).cancel();
		}
		assertThat(this.executor.scheduled).hasValue(1);
		assertThat(this.executor.getQueue()).hasSize(1);
		// an earlier tick gets a task of its own
		this.timer.plan(() -> this.ran.add("earlier"), 30_000);
		assertThat(this.executor.scheduled).hasValue(2);
		assertThat(this.executor.getQueue()).hasSize(2);
		assertThat(this.ran).isEmpty();
	}

	@Test
	void dueTicksRunOnceEachInDueOrderAndCancelledOnesNever() {
		this.timer.plan(() -> this.ran.add("c"), 300);
		this.timer.plan(() -> this.ran.add("a"), 100);
		RenewalTimer.Planned cancelled = this.timer.plan(() -> this.ran.add("cancelled"), 200);
		this.timer.plan(() -> this.ran.add("b"), 200);
		cancelled.cancel();
		this.timer.plan(() -> this.ran.add("d"), 400);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.ran).hasSize(4));
		assertThat(this.ran).containsExactly("a", "b", "c", "d");
		// the task left over from the later first plan ("c" at 300 ms, planned before "a") found nothing more due
		await().atMost(Duration.ofSeconds(10)).until(() -> this.executor.getQueue().isEmpty());
		assertThat(this.ran).containsExactly("a", "b", "c", "d");
	}

	@Test
	void aTickThatThrowsDoesNotStopTheOthers() {
		this.timer.plan(() -> {
			throw new IllegalStateException("tick failed");
		}, 10);
		this.timer.plan(() -> this.ran.add("after"), 10);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.ran).containsExactly("after"));
	}

	@Test
	void aClosedExecutorRefusesAPlan() {
		this.executor.shutdownNow();
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> this.timer.plan(() -> this.ran.add("never"), 10));
	}

}
