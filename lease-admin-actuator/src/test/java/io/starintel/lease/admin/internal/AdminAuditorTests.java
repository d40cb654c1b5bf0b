package io.starintel.lease.admin.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.internal.AuditWriteException;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * An admin refusal's event goes through the non-blocking pipeline (a durable sink that does not answer never holds
 * the request; an out-of-scope refusal never reaches a durable sink), while the answer of an admin decision that
 * happened is written before the request returns.
 */
class AdminAuditorTests {

	private final CountDownLatch sinkHeld = new CountDownLatch(1);

	private final List<AuditEvent> durable = new CopyOnWriteArrayList<>();

	/** A durable sink that does not answer until the test lets it. */
	private final AuditSink silent = new AuditSink() {
		@Override
		public void record(AuditEvent event) {
			try {
				AdminAuditorTests.this.sinkHeld.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			AdminAuditorTests.this.durable.add(event);
		}

		@Override
		public boolean isDurable() {
			return true;
		}
	};

	@Test
	void refusalsNeverWaitOnASinkAndOutOfScopeOnesNeverReachADurableOne() {
		List<AuditEvent> other = new CopyOnWriteArrayList<>();
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(this.silent, other::add), 100,
				Duration.ofSeconds(10), (count) -> {
				})) {
			AdminAuditor auditor = new AdminAuditor(() -> List.of(this.silent, other::add), true, Clock.systemUTC(),
					pipeline);
			AuditEvent denied = event(ResultCode.ACCESS_DENIED);
			AuditEvent outOfScope = event(ResultCode.ACCESS_DENIED);
			// written synchronously, either call would park this thread on the latch only the test counts down
			assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
				auditor.record(denied, true);
				auditor.record(outOfScope, false);
			});
			this.sinkHeld.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> other.size() == 2);
			assertThat(other).containsExactly(denied, outOfScope);
			assertThat(this.durable).containsExactly(denied);
		}
	}

	@Test
	void aDecisionThatHappenedIsWrittenBeforeTheCallReturns() {
		this.sinkHeld.countDown();
		List<AuditEvent> other = new CopyOnWriteArrayList<>();
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(other::add), 100, Duration.ofSeconds(10),
				(count) -> {
				})) {
			AdminAuditor auditor = new AdminAuditor(() -> List.of(this.silent), true, Clock.systemUTC(), pipeline);
			AuditEvent revoked = event(ResultCode.LEASE_REVOKED);
			auditor.record(revoked, true);
			assertThat(this.durable).containsExactly(revoked);
		}
	}

	/** A decision written synchronously waits at most until its request's deadline: the sink gets the time left. */
	@Test
	void aDecisionIsWaitedForAtMostUntilTheRequestsDeadline() {
		Instant now = Instant.parse("2026-12-07T10:00:00Z");
		List<Duration> waits = new CopyOnWriteArrayList<>();
		AuditSink bounded = new AuditSink() {
			@Override
			public void record(AuditEvent event) {
				waits.add(Duration.ofDays(-1));
			}

			@Override
			public void recordWithin(AuditEvent event, Duration within) {
				waits.add(within);
			}

			@Override
			public boolean isDurable() {
				return true;
			}
		};
		AdminAuditor auditor = new AdminAuditor(() -> List.of(bounded), true, Clock.fixed(now, ZoneOffset.UTC));
		auditor.record(event(ResultCode.LEASE_REVOKED), true, now.plusMillis(2500));
		auditor.record(event(ResultCode.LEASE_REVOKED), true, null);
		assertThat(waits).as("the time left to the deadline; none given: the sink's own bound")
			.containsExactly(Duration.ofMillis(2500), Duration.ofDays(-1));
	}

	/**
	 * A decision whose request's deadline has already passed cannot be confirmed before the answer: it goes through
	 * the pipeline, after the answer, instead of failing at the durable sink with no time left and being lost.
	 */
	@Test
	void aDecisionWhoseDeadlineHasPassedGoesThroughThePipelineNotLost() {
		Instant now = Instant.now();
		List<String> synchronous = new CopyOnWriteArrayList<>();
		AuditSink stream = new AuditSink() {
			@Override
			public void record(AuditEvent event) {
				AdminAuditorTests.this.durable.add(event);
			}

			@Override
			public void recordWithin(AuditEvent event, Duration within) {
				synchronous.add(within.toString());
				if (within.isNegative() || within.isZero()) {
					throw new AuditWriteException("no time left");
				}
				record(event);
			}

			@Override
			public boolean isDurable() {
				return true;
			}
		};
		try (AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(stream), 100, Duration.ofSeconds(10),
				(count) -> {
				})) {
			AdminAuditor auditor = new AdminAuditor(() -> List.of(stream), true, Clock.fixed(now, ZoneOffset.UTC),
					pipeline);
			AuditEvent revoked = event(ResultCode.LEASE_REVOKED);
			auditor.record(revoked, true, now.minusMillis(1));
			await().atMost(Duration.ofSeconds(10)).until(() -> this.durable.size() == 1);
			assertThat(this.durable).containsExactly(revoked);
			assertThat(synchronous).as("no synchronous write with no time left").isEmpty();
		}
	}

	private static AuditEvent event(ResultCode code) {
		return new AuditEventBuilder(AuditEventType.REVOKE, code).time(Instant.now(), Instant.now())
			.scope(ProgramScope.of("tenant-a", "program-a"))
			.build();
	}

}
