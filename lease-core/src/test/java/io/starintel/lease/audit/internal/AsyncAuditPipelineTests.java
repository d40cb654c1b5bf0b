package io.starintel.lease.audit.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The routine pipeline delivers every event, in order, to every sink; it batches deliveries (one wake-up per batch)
 * without adding drops or holding events back at shutdown.
 */
class AsyncAuditPipelineTests {

	private final List<AuditEvent> first = new CopyOnWriteArrayList<>();

	private final List<AuditEvent> second = new CopyOnWriteArrayList<>();

	private final AtomicLong dropped = new AtomicLong();

	@Test
	void whenEventsAreSubmittedThenEverySinkGetsEveryEventInOrder() {
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(this.first::add, this.second::add), 10_000,
				Duration.ofSeconds(10), this.dropped::addAndGet)) {
			List<AuditEvent> submitted = new ArrayList<>();
			for (int i = 0; i < 1000; i++) {
				AuditEvent event = event(i);
				submitted.add(event);
				pipeline.submit(event);
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.deliveredCount() == 1000);
			assertThat(this.first).containsExactlyElementsOf(submitted);
			assertThat(this.second).containsExactlyElementsOf(submitted);
			assertThat(pipeline.droppedCount()).isZero();
			assertThat(this.dropped).hasValue(0);
		}
	}

	@Test
	void whenAnEventIsForTheNonDurableSinksOnlyThenNoDurableSinkGetsIt() {
		List<AuditEvent> durable = new CopyOnWriteArrayList<>();
		AuditSink durableSink = new AuditSink() {
			@Override
			public void record(AuditEvent event) {
				durable.add(event);
			}

			@Override
			public boolean isDurable() {
				return true;
			}
		};
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(this.first::add, durableSink), 100,
				Duration.ofSeconds(10), this.dropped::addAndGet)) {
			AuditEvent one = event(1);
			AuditEvent outOfScope = event(2);
			AuditEvent three = event(3);
			pipeline.submit(one);
			pipeline.submitExceptDurable(outOfScope);
			pipeline.submit(three);
			await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.deliveredCount() == 3);
			assertThat(this.first).containsExactly(one, outOfScope, three);
			assertThat(durable).containsExactly(one, three);
		}
	}

	@Test
	void whenOneEventIsSubmittedThenItIsDeliveredWithinTheLingerTime() {
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(this.first::add), 100,
				Duration.ofSeconds(10), this.dropped::addAndGet)) {
			await().atMost(Duration.ofSeconds(2)).until(pipeline::idle);
			pipeline.submit(event(1));
			await().atMost(Duration.ofSeconds(2)).until(() -> pipeline.deliveredCount() == 1);
			assertThat(this.first).hasSize(1);
		}
	}

	@Test
	void whenTheThreadLingersThenEventsWaitUntilHalfTheCapacityIsQueued() throws Exception {
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(this.first::add), 10, Duration.ofSeconds(10),
				this.dropped::addAndGet, Duration.ofSeconds(30))) {
			await().atMost(Duration.ofSeconds(2)).until(pipeline::idle);
			for (int i = 0; i < 4; i++) {
				pipeline.submit(event(i));
			}
			// a batch gathers while the thread lingers: nothing delivered for 300 ms (of the 30 s linger)
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
				.until(() -> pipeline.deliveredCount() == 0);
			pipeline.submit(event(4)); // a backlog of half the capacity wakes the thread at once
			await().atMost(Duration.ofSeconds(5)).until(() -> pipeline.deliveredCount() == 5);
			assertThat(pipeline.droppedCount()).isZero();
		}
	}

	@Test
	void whenClosedWhileLingeringThenQueuedEventsAreDeliveredAtOnce() {
		AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(this.first::add), 100, Duration.ofSeconds(10),
				this.dropped::addAndGet, Duration.ofSeconds(30));
		await().atMost(Duration.ofSeconds(2)).until(pipeline::idle);
		pipeline.submit(event(1));
		pipeline.submit(event(2));
		long started = System.nanoTime();
		pipeline.close();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(2000);
		assertThat(pipeline.deliveredCount()).isEqualTo(2);
		assertThat(this.first).hasSize(2);
	}

	@Test
	void whenFlushedThenEveryEventSubmittedBeforeHasReachedEverySinkOrTheWaitEndsAtItsBound() {
		BlockedAuditSink blocked = new BlockedAuditSink();
		AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(blocked, this.first::add), 100,
				Duration.ofSeconds(10), this.dropped::addAndGet);
		try (pipeline) {
			for (int i = 0; i < 3; i++) {
				pipeline.submit(event(i));
			}
			assertThat(pipeline.flush(Duration.ofMillis(200))).as("flushed while a sink holds the events").isFalse();
			assertThat(this.first).isEmpty();
			blocked.release();
			pipeline.submit(event(3));
			assertThat(pipeline.flush(Duration.ofSeconds(5))).isTrue();
			// no wait: everything submitted before the flush is there when it returns
			assertThat(this.first).hasSize(4);
			assertThat(pipeline.deliveredCount()).as("the flushes are not events").isEqualTo(4);
			assertThat(pipeline.backlog()).isZero();
			assertThat(pipeline.flush(Duration.ofSeconds(5))).as("nothing queued").isTrue();
		}
		assertThat(pipeline.flush(Duration.ofMillis(100))).as("closed").isFalse();
		assertThat(this.dropped).hasValue(0);
	}

	@Test
	void whenTheQueueIsFullThenEventsAreDroppedAndCountedWithoutWaiting() throws Exception {
		BlockedAuditSink blocked = new BlockedAuditSink();
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(blocked), 4, Duration.ofSeconds(10),
				this.dropped::addAndGet)) {
			pipeline.submit(event(0));
			await().atMost(Duration.ofSeconds(5)).until(() -> pipeline.backlog() == 0); // the thread holds event 0
			long started = System.nanoTime();
			for (int i = 1; i <= 10; i++) {
				pipeline.submit(event(i));
			}
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1000);
			assertThat(pipeline.droppedCount()).isEqualTo(6);
			assertThat(this.dropped).hasValue(6);
			blocked.release();
			await().atMost(Duration.ofSeconds(5)).until(() -> pipeline.deliveredCount() == 5);
		}
	}

	@Test
	void whenADurableSinkFailsThenItGetsItsEventsAgainInOrderAheadOfLaterOnes() {
		FlakyDurableSink durable = new FlakyDurableSink(Integer.MAX_VALUE);
		AtomicLong failed = new AtomicLong();
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(durable, this.first::add), 10_000,
				Duration.ofSeconds(10), this.dropped::addAndGet, failed::addAndGet, Duration.ofMinutes(1))) {
			List<AuditEvent> submitted = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				submitted.add(event(i));
				pipeline.submit(submitted.get(i));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.unconfirmedCount() == 10);
			for (int i = 10; i < 20; i++) {
				submitted.add(event(i));
				pipeline.submit(submitted.get(i));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.unconfirmedCount() == 20);
			await().atMost(Duration.ofSeconds(10)).until(() -> durable.attempts.get() >= 2); // sent again, failed again
			durable.failures.set(0);
			await().atMost(Duration.ofSeconds(10)).until(() -> durable.recorded.size() == 20);
			assertThat(durable.recorded).containsExactlyElementsOf(submitted);
			await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.unconfirmedCount() == 0);
			// the sink that did not fail got each event once, while the durable one was failing
			await().atMost(Duration.ofSeconds(10)).until(() -> this.first.size() == 20);
			assertThat(this.first).containsExactlyElementsOf(submitted);
			assertThat(pipeline.failedCount()).isZero();
			assertThat(failed).hasValue(0);
		}
	}

	@Test
	void whenADurableSinkFailsBeyondTheRetryWindowThenItsEventsCountAsFailedAndLaterOnesGoThrough() {
		FlakyDurableSink durable = new FlakyDurableSink(Integer.MAX_VALUE);
		AtomicLong failed = new AtomicLong();
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(durable), 10_000, Duration.ofSeconds(10),
				this.dropped::addAndGet, failed::addAndGet, Duration.ofMillis(300))) {
			for (int i = 0; i < 5; i++) {
				pipeline.submit(event(i));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.failedCount() == 5);
			assertThat(failed).hasValue(5);
			assertThat(durable.attempts.get()).isGreaterThanOrEqualTo(2); // sent again before giving up
			durable.failures.set(0);
			AuditEvent later = event(5);
			pipeline.submit(later);
			await().atMost(Duration.ofSeconds(10)).until(() -> durable.recorded.size() == 1);
			assertThat(durable.recorded).containsExactly(later);
		}
	}

	@Test
	void whenClosedWhileADurableSinkBacksOffThenItsEventsGetOneLastAttempt() {
		FlakyDurableSink durable = new FlakyDurableSink(Integer.MAX_VALUE);
		AtomicLong failed = new AtomicLong();
		AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(durable), 10_000, Duration.ofSeconds(10),
				this.dropped::addAndGet, failed::addAndGet, Duration.ofMinutes(1));
		List<AuditEvent> submitted = List.of(event(0), event(1), event(2));
		submitted.forEach(pipeline::submit);
		await().atMost(Duration.ofSeconds(10)).until(() -> durable.attempts.get() >= 1);
		durable.failures.set(0); // confirms from now on; the pipeline waits out its back-off before trying again
		pipeline.close();
		assertThat(durable.recorded).containsExactlyElementsOf(submitted);
		assertThat(failed).hasValue(0);
	}

	@Test
	void whenADurableSinkConfirmsPartOfAFailedBatchThenOnlyTheRestIsSentAgainInOrder() {
		// a batch that went to several cluster primaries: the entries of every other one were confirmed
		List<List<AuditEvent>> calls = new CopyOnWriteArrayList<>();
		List<AuditEvent> recorded = new CopyOnWriteArrayList<>();
		List<AuditEvent> sentAgain = new CopyOnWriteArrayList<>();
		AtomicInteger failures = new AtomicInteger(2);
		AuditSink durable = new AuditSink() {

			@Override
			public void record(AuditEvent event) {
				recordAll(List.of(event));
			}

			@Override
			public void recordAll(List<AuditEvent> events) {
				calls.add(List.copyOf(events));
				events.stream().filter(recorded::contains).forEach(sentAgain::add);
				if (failures.getAndDecrement() > 0) {
					BitSet confirmed = new BitSet();
					for (int i = 0; i < events.size(); i += 2) {
						confirmed.set(i);
						recorded.add(events.get(i));
					}
					throw new AuditWriteException("not acknowledged", confirmed);
				}
				recorded.addAll(events);
			}

			@Override
			public boolean isDurable() {
				return true;
			}

		};
		AtomicLong failed = new AtomicLong();
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(durable), 10_000, Duration.ofSeconds(10),
				this.dropped::addAndGet, failed::addAndGet, Duration.ofMinutes(1))) {
			List<AuditEvent> submitted = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				submitted.add(event(i));
			}
			submitted.forEach(pipeline::submit);
			await().atMost(Duration.ofSeconds(10)).until(() -> recorded.size() == 8);
			await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.unconfirmedCount() == 0);
			assertThat(recorded).as("each event confirmed once").hasSize(8).containsExactlyInAnyOrderElementsOf(submitted);
			assertThat(sentAgain).as("confirmed events handed to the sink again").isEmpty();
			assertThat(calls).as("two failed calls, then the rest").hasSizeGreaterThanOrEqualTo(3);
			for (List<AuditEvent> call : calls) {
				assertThat(call).as("in submission order").isSortedAccordingTo(
						java.util.Comparator.comparing((AuditEvent event) -> submitted.indexOf(event)));
			}
			assertThat(failed).hasValue(0);
		}
	}

	/** A durable sink that fails its first {@code failures} calls and records nothing when it fails. */
	private static final class FlakyDurableSink implements AuditSink {

		final AtomicInteger failures;

		final AtomicInteger attempts = new AtomicInteger();

		final List<AuditEvent> recorded = new CopyOnWriteArrayList<>();

		FlakyDurableSink(int failures) {
			this.failures = new AtomicInteger(failures);
		}

		@Override
		public void record(AuditEvent event) {
			recordAll(List.of(event));
		}

		@Override
		public void recordAll(List<AuditEvent> events) {
			this.attempts.incrementAndGet();
			if (this.failures.getAndDecrement() > 0) {
				throw new AuditWriteException("not confirmed");
			}
			this.recorded.addAll(events);
		}

		@Override
		public boolean isDurable() {
			return true;
		}

	}

	private static AuditEvent event(int i) {
		return new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED)
			.time(Instant.EPOCH.plusMillis(i), Instant.EPOCH)
			.ids("request_" + i, null)
			.build();
	}

}
