package io.starintel.lease.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;

import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.internal.AuditEventBuilder;
import io.starintel.lease.audit.internal.UnkeptEventsSink;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.internal.BlockedAuditSink;
import io.starintel.lease.autoconfigure.fence.FenceAutoConfiguration;
import io.starintel.lease.autoconfigure.health.LeaseHealthAutoConfiguration;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.fence.FenceDecision;
import io.starintel.lease.fence.FenceGuard;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The one audited operations path: one facade over one audited store, used by jobs, the fence guard and health;
 * {@code starintel.lease.audit.enabled=false} holds everywhere; routine audit never blocks lease work.
 */
class AuditWiringTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				LeaseJobAutoConfiguration.class, LeaseHealthAutoConfiguration.class, FenceAutoConfiguration.class))
		.withPropertyValues("starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
				"starintel.lease.owner.service-principal=prn_test", "starintel.lease.store=memory");

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target", "t1",
			"usernamegen", "default", null);

	private static final LeaseOwner OWNER = new LeaseOwner("prn_test", "c", "k", "i");

	private static LeaseResult acquire(LeaseService service) {
		return service.acquire(AcquireRequest.builder(IDENTITY, OWNER)
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(5))
			.build(service.newId(), service.deadline()));
	}

	private static ReleaseRequest release(LeaseService service, LeaseResult acquired) {
		return new ReleaseRequest(acquired.lease().handle(), service.newId(), service.deadline());
	}

	/** A durable sink (as the Redis audit stream is). */
	static final class DurableSink implements AuditSink {

		@Override
		public void record(AuditEvent event) {
		}

		@Override
		public boolean isDurable() {
			return true;
		}

	}

	@Test
	void whenNoDurableSinkKeepsRoutineEventsThenTheLogSinkGetsThem() {
		this.runner.run((context) -> assertThat(context.getBean(AsyncAuditPipeline.class).sinks())
			.contains(context.getBean(LeaseAuditAutoConfiguration.LOG_SINK, AuditSink.class)));
	}

	@Test
	void whenADurableSinkKeepsRoutineEventsThenTheLogSinkGetsOnlyTheEventsItDoesNotKeep() {
		this.runner.withBean(DurableSink.class, DurableSink::new).run((context) -> {
			AuditSink log = context.getBean(LeaseAuditAutoConfiguration.LOG_SINK, AuditSink.class);
			assertThat(context.getBean(AsyncAuditPipeline.class).sinks()).doesNotContain(log)
				.contains(context.getBean(DurableSink.class))
				.anySatisfy((sink) -> assertThat(sink).isInstanceOfSatisfying(UnkeptEventsSink.class,
						(unkept) -> assertThat(unkept.delegate()).isSameAs(log)));
		});
	}

	/**
	 * With a durable sink and the default log-sink setting, the log still gets every event no durable sink keeps: one
	 * without a program scope (a request refused before its scope was known) and one submitted for the non-durable
	 * sinks only (an admin refusal naming a program outside the caller's scope); a scoped routine event goes to the
	 * durable sink only (found by an outside probe: such refusals were kept nowhere but in application events).
	 */
	@Test
	void everyEventNoDurableSinkKeepsReachesTheLog() {
		RecordingSink log = new RecordingSink();
		this.runner.withBean(DurableSink.class, DurableSink::new)
			.withBean(LeaseAuditAutoConfiguration.LOG_SINK, AuditSink.class, () -> log)
			.run((context) -> {
				AsyncAuditPipeline pipeline = context.getBean(AsyncAuditPipeline.class);
				AuditEvent scoped = event("corr_scoped", IDENTITY.scope());
				AuditEvent unscoped = event("corr_unscoped", null);
				AuditEvent outOfScope = event("corr_out_of_scope", IDENTITY.scope());
				AuditEvent last = event("corr_last", null);
				pipeline.submit(scoped);
				pipeline.submit(unscoped);
				pipeline.submitExceptDurable(outOfScope);
				pipeline.submit(last);
				await().atMost(Duration.ofSeconds(30)).until(() -> log.events.contains(last));
				assertThat(log.events).containsExactly(unscoped, outOfScope, last);
			});
	}

	private static AuditEvent event(String correlationId, io.starintel.lease.core.ProgramScope scope) {
		return new AuditEventBuilder(AuditEventType.LIST, ResultCode.INVALID_CREDENTIAL).ids(null, correlationId)
			.scope(scope)
			.build();
	}

	/** A sink that keeps what it gets. */
	static final class RecordingSink implements AuditSink {

		final List<AuditEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void record(AuditEvent event) {
			this.events.add(event);
		}

	}

	@Test
	void whenTheLogSinkIsOnThenItGetsRoutineEventsBesideADurableSink() {
		this.runner.withBean(DurableSink.class, DurableSink::new)
			.withPropertyValues("starintel.lease.audit.log-sink=on")
			.run((context) -> assertThat(context.getBean(AsyncAuditPipeline.class).sinks())
				.contains(context.getBean(LeaseAuditAutoConfiguration.LOG_SINK, AuditSink.class)));
	}

	@Test
	void whenTheLogSinkIsOffThenItGetsNoRoutineEvents() {
		this.runner.withPropertyValues("starintel.lease.audit.log-sink=off")
			.run((context) -> assertThat(context.getBean(AsyncAuditPipeline.class).sinks())
				.doesNotContain(context.getBean(LeaseAuditAutoConfiguration.LOG_SINK, AuditSink.class)));
	}

	@Test
	void theFenceGuardAuthorizesThroughTheAuditedFacade() {
		List<AuditEvent> events = new CopyOnWriteArrayList<>();
		this.runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(ApplicationListener.class, () -> collector(events)).run((context) -> {
			LeaseService service = context.getBean(LeaseService.class);
			LeaseResult acquired = acquire(service);
			LeaseContext lease = new LeaseContext(acquired.lease());
			service.release(release(service, acquired));
			FenceDecision decision = context.getBean(FenceGuard.class).authorize(lease);
			assertThat(decision.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(events).extracting(AuditEvent::eventType)
					.contains(AuditEventType.COMMIT_REJECTED));
			assertThat(context.getBean(MeterRegistry.class)
				.get(LeaseService.OPERATION_TIMER)
				.tag("operation", "authorize_commit")
				.timer()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void healthPollsWriteNoAuditEvents() {
		List<AuditEvent> events = new CopyOnWriteArrayList<>();
		this.runner.withBean(ApplicationListener.class, () -> collector(events)).run((context) -> {
			HealthIndicator health = context.getBean("starintelLeaseHealthIndicator", HealthIndicator.class);
			for (int i = 0; i < 5; i++) {
				health.health();
			}
			acquire(context.getBean(LeaseService.class));
			// the acquire event arrives after any earlier event (one queue, one thread)
			await().atMost(Duration.ofSeconds(30)).until(() -> !events.isEmpty());
			assertThat(events).extracting(AuditEvent::eventType).containsExactly(AuditEventType.ACQUIRE);
		});
	}

	@Test
	void whenAuditIsDisabledThenNoSinkGetsAnyEventEvenAUserSink() {
		List<AuditEvent> events = new CopyOnWriteArrayList<>();
		this.runner.withPropertyValues("starintel.lease.audit.enabled=false")
			.withBean(AuditSink.class, () -> events::add)
			.run((context) -> {
				LeaseService service = context.getBean(LeaseService.class);
				assertThat(context).doesNotHaveBean(AsyncAuditPipeline.class);
				assertThat(acquire(service).isSuccess()).isTrue();
				assertThat(events).isEmpty();
			});
	}

	@Test
	void theStoreSaysThroughTheSpiWhetherItWritesAdminAuditAtomically() {
		assertThat(new InMemoryLeaseStore().writesAdminAuditAtomically()).isFalse();
		this.runner.withBean(LeaseStore.class, () -> new DelegatingStore() {
			@Override
			public boolean writesAdminAuditAtomically() {
				return true;
			}
		}).run((context) -> assertThat(context.getBean(LeaseStore.class).writesAdminAuditAtomically()).isTrue());
	}

	@Test
	void eventsADurableSinkDoesNotConfirmWithinTheRetryWindowAreCountedAsFailed() {
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		AuditSink failing = new AuditSink() {

			@Override
			public void record(AuditEvent event) {
				attempts.add(1);
				throw new IllegalStateException("backend down");
			}

			@Override
			public boolean isDurable() {
				return true;
			}

		};
		this.runner.withPropertyValues("starintel.lease.audit.retry-window=300ms")
			.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(AuditSink.class, () -> failing)
			.run((context) -> {
				LeaseService service = context.getBean(LeaseService.class);
				LeaseResult acquired = acquire(service);
				assertThat(service.release(release(service, acquired)).isSuccess()).isTrue();
				AsyncAuditPipeline pipeline = context.getBean(AsyncAuditPipeline.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.failedCount() == 2);
				assertThat(attempts.size()).as("attempts before giving up").isGreaterThanOrEqualTo(2);
				assertThat(context.getBean(MeterRegistry.class).get(AsyncAuditPipeline.FAILED_COUNTER).counter().count())
					.isEqualTo(2);
				assertThat(context.getBean(MeterRegistry.class).get(AsyncAuditPipeline.UNCONFIRMED_GAUGE).gauge().value())
					.isEqualTo(pipeline.unconfirmedCount());
			});
	}

	@Test
	void aBlockedSinkNeverBlocksLeaseWorkAndDropsAreCounted() throws Exception {
		BlockedAuditSink blocked = new BlockedAuditSink();
		this.runner.withPropertyValues("starintel.lease.audit.queue-capacity=2")
			.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(AuditSink.class, () -> blocked)
			.run((context) -> {
				LeaseService service = context.getBean(LeaseService.class);
				long started = System.nanoTime();
				LeaseResult acquired = acquire(service);
				for (int i = 0; i < 20; i++) {
					assertThat(service.renew(new RenewRequest(acquired.lease().handle(), service.newId(),
							service.deadline())).isSuccess()).isTrue();
				}
				assertThat(service.release(release(service, acquired)).isSuccess()).isTrue();
				assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(20);
				AsyncAuditPipeline pipeline = context.getBean(AsyncAuditPipeline.class);
				assertThat(pipeline.droppedCount()).isGreaterThanOrEqualTo(18);
				assertThat(context.getBean(MeterRegistry.class).get(AsyncAuditPipeline.DROPPED_COUNTER).counter().count())
					.isEqualTo(pipeline.droppedCount());
				blocked.release();
			});
	}

	@SuppressWarnings("rawtypes")
	private static ApplicationListener collector(List<AuditEvent> events) {
		return (ApplicationListener<PayloadApplicationEvent<?>>) (event) -> {
			if (event.getPayload() instanceof AuditEvent audit) {
				events.add(audit);
			}
		};
	}

}
