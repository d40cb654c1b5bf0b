package io.starintel.lease.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Hooks;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.autoconfigure.LeaseJobAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.job.internal.LeaseRenewalScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@link TargetLeased} interceptor on the in-memory store, through the auto-configuration: acquire, skip, throw,
 * release on exception, futures, re-entrancy, loss cancellation, maximum lifetime, metrics, {@code @Async} and
 * Reactor propagation; with AspectJ absent too.
 */
class TargetLeaseInterceptorTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaseStoreAutoConfiguration.class,
				io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration.class, LeaseJobAutoConfiguration.class))
		.withPropertyValues("starintel.lease.store=memory", "starintel.lease.tenant=tenant-main",
				"starintel.lease.program=program-a", "starintel.lease.owner.service-principal=prn_test",
				"starintel.lease.ttl.minimum=100ms", "starintel.lease.renewal.margin=100ms")
		.withUserConfiguration(Jobs.class);

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class Jobs {

		@Bean
		JobState jobState() {
			return new JobState();
		}

		@Bean
		LeasedJobs leasedJobs(JobState state) {
			return new LeasedJobs(state);
		}

		@Bean
		AsyncWorker asyncWorker() {
			return new AsyncWorker();
		}

		@Bean
		ThreadPoolTaskExecutor taskExecutor(TaskDecorator decorator) {
			ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
			executor.setThreadNamePrefix("async-");
			executor.setTaskDecorator(decorator);
			return executor;
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		LostEvents lostEvents() {
			return new LostEvents();
		}

	}

	static class LostEvents {

		final List<LeaseLostEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeaseLostEvent event) {
			this.events.add(event);
		}

	}

	private static LeasedJobs jobs(AssertableApplicationContext context) {
		LeasedJobs jobs = context.getBean(LeasedJobs.class);
		jobs.setSelf(jobs);
		jobs.setWorker(context.getBean(AsyncWorker.class));
		return jobs;
	}

	private static JobState state(AssertableApplicationContext context) {
		return context.getBean(JobState.class);
	}

	private static LockIdentity identity(String target) {
		return LockIdentity.of("tenant-main", "program-a", "starintel-target", target, "usernamegen", "default",
				"default");
	}

	private static LeaseResult inspect(AssertableApplicationContext context, String target) {
		return context.getBean(LeaseStore.class)
			.inspect(InspectRequest.byIdentity(identity(target), "corr_test", Instant.now().plusSeconds(5)));
	}

	/** Holds the target's lease as another owner, through the service. */
	private static LeaseResult holdElsewhere(AssertableApplicationContext context, String target) {
		LeaseService service = context.getBean(LeaseService.class);
		return service.acquire(io.starintel.lease.core.AcquireRequest
			.builder(identity(target), new io.starintel.lease.core.LeaseOwner("prn_other", "client_other", "key_other",
					"instance_other"))
			.ttl(Duration.ofSeconds(30))
			.maximumLifetime(Duration.ofMinutes(1))
			.build(service.newId(), service.deadline()));
	}

	@Test
	void withoutAspectjALeasedMethodRunsUnderItsLeaseThroughBootsInfrastructureProxyCreator() {
		// without AspectJ, Boot registers the proxy creator that applies infrastructure-role advisors only
		this.runner.withClassLoader(new FilteredClassLoader("org.aspectj")).run((context) -> {
			assertThat(context).hasNotFailed();
			LeasedJobs jobs = context.getBean(LeasedJobs.class);
			assertThat(AopUtils.isAopProxy(jobs)).as("proxied").isTrue();
			String leaseId = jobs.process("target_without_aspectj");
			assertThat(leaseId).startsWith("lease_");
			assertThat(context.getBean(JobState.class).runs.get()).isEqualTo(1);
		});
	}

	@Test
	void whenFreeThenMethodRunsUnderBoundContextAndLeaseIsReleased() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			String leaseId = jobs.process("target_01");
			assertThat(state(context).runs).hasValue(1);
			LeaseContext seen = state(context).seen.get(0);
			assertThat(seen.leaseId()).isEqualTo(leaseId);
			assertThat(seen.identity()).isEqualTo(identity("target_01"));
			assertThat(seen.lease().owner().principalId()).isEqualTo("prn_test");
			assertThat(seen.isLost()).isFalse();
			assertThat(LeaseContext.current()).isEmpty();
			assertThat(inspect(context, "target_01").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(context.getBean(LeaseRenewalScheduler.class).heldCount()).isZero();
			// a second call acquires again, with a strictly greater token
			jobs.process("target_01");
			assertThat(state(context).seen.get(1).fencingToken()).isGreaterThan(seen.fencingToken());
		});
	}

	@Test
	void whenConflictAndSkipThenMethodDoesNotRunAndEmptyValuesAreReturned() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			assertThat(holdElsewhere(context, "target_02").code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
			assertThat(jobs.process("target_02")).isNull();
			assertThat(jobs.processOptional("target_02")).isEqualTo(Optional.empty());
			CompletableFuture<String> later = jobs.processLater("target_02");
			assertThat(later).isCompletedWithValue(null);
			assertThat(state(context).runs).hasValue(0);
		});
	}

	@Test
	void whenConflictAndSkipThenTheSkipIsLoggedAtDebugNotInfo() {
		// a skip is the routine outcome of workers racing for a target; its audit event records it, so the
		// interceptor's own line must not add an INFO line per skipped call
		ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
			.getLogger("io.starintel.lease.job.internal.TargetLeaseInterceptor");
		ListAppender<ILoggingEvent> lines = new ListAppender<>();
		lines.start();
		Level level = logger.getLevel();
		logger.setLevel(Level.DEBUG);
		logger.addAppender(lines);
		try {
			this.runner.run((context) -> {
				LeasedJobs jobs = jobs(context);
				assertThat(holdElsewhere(context, "target_05").code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
				assertThat(jobs.process("target_05")).isNull();
			});
		}
		finally {
			logger.detachAppender(lines);
			logger.setLevel(level);
		}
		assertThat(lines.list).filteredOn((line) -> line.getFormattedMessage().startsWith("Lease conflict, skipping"))
			.singleElement()
			.satisfies((line) -> assertThat(line.getLevel()).isEqualTo(Level.DEBUG))
			.satisfies((line) -> assertThat(line.getFormattedMessage()).doesNotContain("target_05"));
	}

	@Test
	void whenConflictAndThrowThenTypedConflictException() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			holdElsewhere(context, "target_03");
			assertThatThrownBy(() -> jobs.processOrThrow("target_03")).isInstanceOf(LeaseConflictException.class)
				.satisfies((ex) -> assertThat(((LeaseConflictException) ex).code()).isEqualTo(ResultCode.LEASE_CONFLICT))
				.hasMessageNotContaining("target_03");
			assertThat(state(context).runs).hasValue(0);
		});
	}

	@Test
	void whenWaitingThenAcquiresOnceTheHolderReleases() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			LeaseService service = context.getBean(LeaseService.class);
			LeaseResult other = holdElsewhere(context, "target_04");
			CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> jobs.processWaiting("target_04"));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> context.getBean(MeterRegistry.class)
					.find(LeaseService.OPERATION_TIMER).tag("code", "lease_conflict").timer() != null);
			assertThat(service.release(new io.starintel.lease.core.ReleaseRequest(other.lease().handle(), service.newId(),
					service.deadline())).code()).isEqualTo(ResultCode.LEASE_RELEASED);
			assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("ran");
		});
	}

	@Test
	void whenMethodThrowsThenLeaseIsReleasedAndExceptionPropagates() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			assertThatThrownBy(() -> jobs.fail("target_05")).isInstanceOf(IllegalStateException.class)
				.hasMessage("job failed");
			assertThat(state(context).runs).hasValue(1);
			assertThat(inspect(context, "target_05").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(LeaseContext.current()).isEmpty();
		});
	}

	@Test
	void whenMethodReturnsFutureThenLeaseIsHeldUntilItCompletes() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			CompletableFuture<String> result = jobs.processLater("target_06");
			assertThat(result).isNotDone();
			LeaseResult held = inspect(context, "target_06");
			assertThat(held.code()).isEqualTo(ResultCode.LEASE_INSPECTED);
			state(context).proceed.countDown();
			assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo(held.lease().leaseId());
			await().atMost(Duration.ofSeconds(5))
				.until(() -> inspect(context, "target_06").code() == ResultCode.LEASE_NOT_FOUND);
		});
	}

	@Test
	void whenReenteringSameIdentityThenJoinsExistingContextWithoutSecondAcquire() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			String innerLeaseId = jobs.outer("target_07", "target_07");
			LeaseContext outer = state(context).seen.get(0);
			assertThat(state(context).seen.get(1)).isSameAs(outer);
			assertThat(innerLeaseId).isEqualTo(outer.leaseId());
			assertThat(context.getBean(MeterRegistry.class)
				.get(LeaseService.OPERATION_TIMER).tag("operation", "acquire").timers()
				.stream().mapToLong((t) -> t.count()).sum()).isEqualTo(1);
			assertThat(inspect(context, "target_07").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		});
	}

	@Test
	void whenNestingADifferentIdentityThenInnerLeaseIsSeparateAndReleasedFirst() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			String innerLeaseId = jobs.outer("target_08", "target_09");
			assertThat(innerLeaseId).isNotEqualTo(state(context).seen.get(0).leaseId());
			assertThat(state(context).seen.get(1).identity()).isEqualTo(identity("target_09"));
			assertThat(inspect(context, "target_08").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			assertThat(inspect(context, "target_09").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		});
	}

	@Test
	void whenLeaseIsRevokedThenNextRenewalLosesItInterruptsTheJobAndPublishesEvent() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			CompletableFuture<Void> job = CompletableFuture.runAsync(() -> jobs.hold("target_10"));
			assertThat(state(context).started.await(5, TimeUnit.SECONDS)).isTrue();
			LeaseContext lease = state(context).blockedContext.get();
			LeaseResult revoked = context.getBean(LeaseStore.class).revoke(new AdminRequest(Operation.REVOKE,
					lease.identity(), Identifiers.generate("request"), Instant.now().plusSeconds(5), lease.leaseId(),
					lease.fencingToken(), "prn_admin", "key_admin", "incident-42"));
			assertThat(revoked.code()).isEqualTo(ResultCode.LEASE_REVOKED);
			job.get(15, TimeUnit.SECONDS); // renewal every ~1 s: far inside 15 s
			assertThat(state(context).interrupted).isTrue();
			assertThat(lease.isLost()).isTrue();
			assertThat(lease.holdsAuthority()).isFalse();
			assertThat(lease.lossReason()).contains(Reason.STALE_LEASE);
			List<LeaseLostEvent> events = context.getBean(LostEvents.class).events;
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.context()).isSameAs(lease);
				assertThat(event.reason()).isEqualTo(Reason.STALE_LEASE);
			});
			assertThat(context.getBean(SimpleMeterRegistry.class)
				.get(io.starintel.lease.sweep.LeaseMeters.LOST)
				.tag("reason", Reason.STALE_LEASE.wireName())
				.counter()
				.count()).isEqualTo(1.0);
			assertThat(context.getBean(LeaseRenewalScheduler.class).heldCount()).isZero();
		});
	}

	/**
	 * A revoke or force-release through this JVM's service (as the admin endpoint and the console make them) cancels
	 * the job at once, not at its next renewal (a third of the TTL later: 40 s here). The contract: revoke signals
	 * cancellation to the job immediately.
	 */
	@ParameterizedTest
	@EnumSource(value = Operation.class, names = { "REVOKE", "FORCE_RELEASE" })
	void whenAnAdministratorOfThisJvmEndsTheLeaseThenTheJobIsCancelledAtOnce(Operation operation) {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			CompletableFuture<Void> job = CompletableFuture.runAsync(() -> jobs.holdLong("target_long"));
			assertThat(state(context).started.await(5, TimeUnit.SECONDS)).isTrue();
			LeaseContext lease = state(context).blockedContext.get();
			LeaseService service = context.getBean(LeaseService.class);
			AdminRequest request = new AdminRequest(operation, lease.identity(), service.newId(), service.deadline(),
					lease.leaseId(), lease.fencingToken(), "prn_admin", "key_admin", "incident-43");
			LeaseResult ended = (operation == Operation.REVOKE) ? service.revoke(request)
					: service.forceRelease(request);
			assertThat(ended.isSuccess()).as(ended.code().wireName()).isTrue();
			job.get(10, TimeUnit.SECONDS); // the next renewal is 40 s away; the job blocks 20 s unless interrupted
			assertThat(state(context).interrupted).isTrue();
			assertThat(lease.isLost()).isTrue();
			assertThat(context.getBean(LeaseRenewalScheduler.class).heldCount()).isZero();
		});
	}

	@Test
	void whenFutureJobLosesItsLeaseThenItsFutureIsCancelled() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			CompletableFuture<String> result = jobs.holdLater("target_11");
			LeaseContext lease = state(context).blockedContext.get();
			context.getBean(LeaseStore.class).revoke(new AdminRequest(Operation.REVOKE, lease.identity(),
					Identifiers.generate("request"), Instant.now().plusSeconds(5), lease.leaseId(), lease.fencingToken(),
					"prn_admin", "key_admin", "incident-43"));
			assertThatThrownBy(() -> result.get(15, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
			assertThat(lease.isLost()).isTrue();
		});
	}

	@Test
	void whenMaximumLifetimeIsReachedThenRenewalStopsAndTheJobIsCancelled() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			CompletableFuture<Void> job = CompletableFuture.runAsync(() -> jobs.holdPastLifetime("target_12"));
			job.get(20, TimeUnit.SECONDS); // lifetime 2 s
			LeaseContext lease = state(context).blockedContext.get();
			assertThat(state(context).interrupted).isTrue();
			assertThat(lease.lossReason()).contains(Reason.MAXIMUM_LIFETIME_REACHED);
			assertThat(lease.expiresAt()).isEqualTo(lease.lease().lifetimeEnd());
			assertThat(context.getBean(LostEvents.class).events).extracting(LeaseLostEvent::reason)
				.containsExactly(Reason.MAXIMUM_LIFETIME_REACHED);
		});
	}

	@Test
	void whenCancellationIsNoneThenTheThreadIsNotInterruptedButTheContextReadsLost() {
		this.runner.withPropertyValues("starintel.lease.job.cancellation=none").run((context) -> {
			LeasedJobs jobs = jobs(context);
			CompletableFuture<Void> job = CompletableFuture.runAsync(() -> jobs.holdPastLifetime("target_13"));
			assertThat(state(context).started.await(5, TimeUnit.SECONDS)).isTrue();
			LeaseContext lease = state(context).blockedContext.get();
			await().atMost(Duration.ofSeconds(20)).until(lease::isLost);
			state(context).proceed.countDown();
			job.get(5, TimeUnit.SECONDS);
			assertThat(state(context).interrupted).isFalse();
		});
	}

	@Test
	void whenAsyncMethodRunsThenItSeesTheLeaseContext() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			String seen = jobs.viaAsync("target_14");
			assertThat(seen).startsWith("lease_").contains("@async-");
		});
	}

	@Test
	void whenReactorChainRunsOnAnotherThreadThenItSeesTheLeaseContext() {
		Hooks.enableAutomaticContextPropagation();
		try {
			this.runner.run((context) -> {
				LeasedJobs jobs = jobs(context);
				String seen = jobs.viaReactor("target_15");
				assertThat(seen).startsWith("lease_").contains("@boundedElastic-");
			});
		}
		finally {
			Hooks.disableAutomaticContextPropagation();
		}
	}

	@Test
	void whenTargetIsNotCanonicalThenTypedInvalidRequestAndMethodDoesNotRun() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			assertThatThrownBy(() -> jobs.process("../etc")).isInstanceOf(LeaseAcquisitionException.class)
				.satisfies((ex) -> assertThat(((LeaseAcquisitionException) ex).code())
					.isEqualTo(ResultCode.INVALID_LEASE_REQUEST));
			assertThatThrownBy(() -> jobs.badTarget("target_17")).isInstanceOf(LeaseAcquisitionException.class);
			assertThat(state(context).runs).hasValue(0);
		});
	}

	@Test
	void whenBackendIsUnavailableThenTypedAcquisitionExceptionAndMethodDoesNotRun() {
		this.runner.withBean(LeaseStore.class, UnavailableStore::new).run((context) -> {
			LeasedJobs jobs = jobs(context);
			assertThatThrownBy(() -> jobs.process("target_18")).isInstanceOf(LeaseAcquisitionException.class)
				.isNotInstanceOf(LeaseConflictException.class)
				.satisfies((ex) -> assertThat(((LeaseAcquisitionException) ex).code())
					.isEqualTo(ResultCode.LEASE_BACKEND_UNAVAILABLE));
			assertThat(state(context).runs).hasValue(0);
		});
	}

	@Test
	void whenTheOwnerIsNotAValidIdentifierThenTypedInvalidRequestAndMethodDoesNotRun() {
		this.runner.withBean(LeaseOwnerProvider.class,
				() -> () -> new io.starintel.lease.core.LeaseOwner("alice smith", "client_a", "key_a", "instance_a"))
			.run((context) -> {
				LeasedJobs jobs = jobs(context);
				assertThatThrownBy(() -> jobs.process("target_20")).isInstanceOf(LeaseAcquisitionException.class)
					.hasMessageContaining("owner_principal_id")
					.hasMessageNotContaining("alice");
				assertThat(state(context).runs).hasValue(0);
			});
	}

	@Test
	void whenTheJobEndsWhileItsRenewalIsOnItsWayThenTheReleaseFollowsTheRenewalsAnswer() {
		HeldRenewalStore store = new HeldRenewalStore();
		this.runner.withBean(LeaseStore.class, () -> store).run((context) -> {
			LeasedJobs jobs = jobs(context);
			CompletableFuture<Void> job = CompletableFuture.runAsync(() -> jobs.hold("target_21"));
			assertThat(state(context).started.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(store.renewing.await(10, TimeUnit.SECONDS)).isTrue(); // the first renewal, ~1 s in
			state(context).proceed.countDown(); // the job ends while its renewal waits for the backend
			job.get(15, TimeUnit.SECONDS);
			// the release went after the renewal's answer: no release overtook it, no renewal answered lease_lost
			assertThat(store.calls).containsExactly("acquire:lease_acquired", "renew:lease_renewed",
					"release:lease_released");
			assertThat(state(context).blockedContext.get().isLost()).isFalse();
			assertThat(context.getBean(LostEvents.class).events).isEmpty();
		});
	}

	@Test
	void whenTheCallerIsAlreadyInterruptedThenTheLeaseIsAcquiredAndReleasedAndTheFlagIsKept() {
		// a store that, like the Redis store, applies a call but answers it unknown on an interrupted thread: without
		// the flag cleared around the aspect's calls the acquire is committed and the caller told it is unknown
		InterruptSensitiveStore store = new InterruptSensitiveStore();
		this.runner.withBean(LeaseStore.class, () -> store).run((context) -> {
			LeasedJobs jobs = jobs(context);
			String leaseId;
			boolean interruptedAfter;
			Thread.currentThread().interrupt();
			try {
				leaseId = jobs.process("target_22");
			}
			finally {
				interruptedAfter = Thread.interrupted();
			}
			assertThat(interruptedAfter).as("the caller's interrupt flag is kept").isTrue();
			assertThat(leaseId).startsWith("lease_");
			assertThat(state(context).runs).hasValue(1);
			assertThat(store.calls).containsExactly("acquire:lease_acquired", "release:lease_released");
			assertThat(inspect(context, "target_22").code()).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		});
	}

	@Test
	void whenTheJobEndsWithItsInterruptFlagSetThenItsReleaseIsAnsweredAndTheFlagIsKept() {
		InterruptSensitiveStore store = new InterruptSensitiveStore();
		this.runner.withBean(LeaseStore.class, () -> store).run((context) -> {
			LeasedJobs jobs = jobs(context);
			boolean interruptedAfter;
			try {
				jobs.endInterrupted("target_23");
			}
			finally {
				interruptedAfter = Thread.interrupted();
			}
			assertThat(interruptedAfter).as("the job's interrupt flag reaches the caller").isTrue();
			assertThat(store.calls).containsExactly("acquire:lease_acquired", "release:lease_released");
			assertThat(context.getBean(MeterRegistry.class).get(LeaseService.OPERATION_TIMER)
				.tag("operation", "release").tag("code", "lease_released").timer().count()).isEqualTo(1);
		});
	}

	@Test
	void whenTheTargetExpressionDoesNotParseOrIsBlankThenEveryCallIsATypedInvalidRequest() {
		// lazy: not created at start-up, so the start-up check (TargetLeasedStartupTests) does not see it
		this.runner
			.withBean("badTargets", BadTargets.class, BadTargets::new, (definition) -> definition.setLazyInit(true))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BadTargets jobs = context.getBean(BadTargets.class);
				assertThat(AopUtils.isAopProxy(jobs)).isTrue();
				// twice the unparsable one: the plan caches the parse failure, the answer stays the same
				for (Runnable call : List.<Runnable>of(() -> jobs.unparsable("target_24"),
						() -> jobs.blank("target_24"), () -> jobs.unparsable("target_24"))) {
					assertThatThrownBy(call::run).isInstanceOf(LeaseAcquisitionException.class)
						.hasMessageContaining("@TargetLeased(target)")
						.satisfies((ex) -> assertThat(((LeaseAcquisitionException) ex).code())
							.isEqualTo(ResultCode.INVALID_LEASE_REQUEST));
				}
				assertThat(jobs.runs()).isZero();
			});
	}

	@Test
	void whenTheAcquireIsOutcomeUnknownThenItsResolveSharesItsDeadline() {
		DeadlineRecordingStore store = new DeadlineRecordingStore(false);
		this.runner.withBean(LeaseStore.class, () -> store).run((context) -> {
			LeasedJobs jobs = jobs(context);
			assertThat(jobs.process("target_25")).startsWith("lease_"); // the resolve found the acquire committed
			assertThat(store.resolveDeadlines).singleElement().isEqualTo(store.acquireDeadlines.get(0));
		});
	}

	@Test
	void whenTheAcquireUsedItsWholeDeadlineThenNoResolveIsSentAndTheOutcomeIsUnknown() {
		DeadlineRecordingStore store = new DeadlineRecordingStore(true);
		this.runner.withBean(LeaseStore.class, () -> store)
			.withPropertyValues("starintel.lease.request.timeout=300ms")
			.run((context) -> {
				LeasedJobs jobs = jobs(context);
				assertThatThrownBy(() -> jobs.process("target_26")).isInstanceOf(LeaseAcquisitionException.class)
					.satisfies((ex) -> assertThat(((LeaseAcquisitionException) ex).code())
						.isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN));
				assertThat(store.acquireDeadlines).hasSize(1);
				assertThat(store.resolveDeadlines).as("no resolve after the shared deadline").isEmpty();
				assertThat(state(context).runs).hasValue(0);
			});
	}

	@Test
	void whenOperationsRunThenMetricsAreTaggedByOperationAndCodeOnly() {
		this.runner.run((context) -> {
			LeasedJobs jobs = jobs(context);
			jobs.process("target_19");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get(LeaseService.OPERATION_TIMER).tag("operation", "acquire")
				.tag("code", "lease_acquired").timer().count()).isEqualTo(1);
			assertThat(meters.get(LeaseService.OPERATION_TIMER).tag("operation", "release")
				.tag("code", "lease_released").timer().count()).isEqualTo(1);
			assertThat(meters.get(LeaseJobAutoConfiguration.HELD_GAUGE).gauge().value()).isZero();
			for (Meter meter : meters.getMeters()) {
				assertThat(meter.getId().getTags()).allSatisfy((tag) -> {
					assertThat(tag.getValue()).doesNotContain("target_19").doesNotContain("starintel:target-lease");
				});
			}
		});
	}

	/**
	 * A store whose renewals wait up to 500 ms for a release before going on (a renewal on its way to a slow backend): a
	 * release that does not wait for the renewal's answer lets it through first, and the renewal then finds the lease
	 * released. Every call is recorded with its answer, in the order answered.
	 */
	static class HeldRenewalStore extends DelegatingStore {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final CountDownLatch renewing = new CountDownLatch(1);

		private final CountDownLatch releasing = new CountDownLatch(1);

		@Override
		public LeaseResult acquire(io.starintel.lease.core.AcquireRequest request) {
			return answered("acquire", super.acquire(request));
		}

		@Override
		public LeaseResult renew(io.starintel.lease.core.RenewRequest request) {
			this.renewing.countDown();
			try {
				this.releasing.await(500, TimeUnit.MILLISECONDS); // well inside the renewal's deadline (~1.9 s)
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return answered("renew", super.renew(request));
		}

		@Override
		public LeaseResult release(io.starintel.lease.core.ReleaseRequest request) {
			this.releasing.countDown();
			return answered("release", super.release(request));
		}

		private LeaseResult answered(String operation, LeaseResult result) {
			this.calls.add(operation + ":" + result.code().wireName());
			return result;
		}

	}

	/**
	 * A store that answers as the Redis store does on an interrupted thread: the call reaches the backend and is
	 * applied, but the wait for its reply ends at once, so a mutation answers {@code lease_outcome_unknown} and a
	 * resolve {@code lease_backend_unavailable}. Every call is recorded with its answer.
	 */
	static class InterruptSensitiveStore extends DelegatingStore {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@Override
		public LeaseResult acquire(io.starintel.lease.core.AcquireRequest request) {
			return answered("acquire", replyLostIfInterrupted(super.acquire(request)));
		}

		@Override
		public LeaseResult release(io.starintel.lease.core.ReleaseRequest request) {
			return answered("release", replyLostIfInterrupted(super.release(request)));
		}

		@Override
		public LeaseResult resolve(io.starintel.lease.core.ResolveRequest request) {
			return answered("resolve", Thread.currentThread().isInterrupted()
					? LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null)
					: super.resolve(request));
		}

		private static LeaseResult replyLostIfInterrupted(LeaseResult applied) {
			return Thread.currentThread().isInterrupted()
					? LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, null) : applied;
		}

		private LeaseResult answered(String operation, LeaseResult result) {
			this.calls.add(operation + ":" + result.code().wireName());
			return result;
		}

	}

	/**
	 * A store whose acquires are applied but answered {@code lease_outcome_unknown} (a lost reply), recording the
	 * deadline of every acquire and resolve; {@code silent}: each acquire and resolve answers only once its deadline
	 * has passed (a backend that does not answer).
	 */
	static class DeadlineRecordingStore extends DelegatingStore {

		final List<Instant> acquireDeadlines = new CopyOnWriteArrayList<>();

		final List<Instant> resolveDeadlines = new CopyOnWriteArrayList<>();

		private final boolean silent;

		DeadlineRecordingStore(boolean silent) {
			this.silent = silent;
		}

		@Override
		public LeaseResult acquire(io.starintel.lease.core.AcquireRequest request) {
			this.acquireDeadlines.add(request.deadlineAt());
			super.acquire(request);
			silentUntil(request.deadlineAt());
			return LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, null);
		}

		@Override
		public LeaseResult resolve(io.starintel.lease.core.ResolveRequest request) {
			this.resolveDeadlines.add(request.deadlineAt());
			silentUntil(request.deadlineAt());
			return this.silent ? LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, null)
					: super.resolve(request);
		}

		private void silentUntil(Instant deadline) {
			if (this.silent) {
				await().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(10))
					.until(() -> !Instant.now().isBefore(deadline));
			}
		}

	}

	/** Leased methods whose target expression does not parse, or is blank. */
	static class BadTargets {

		private final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

		/** How often a method ran (a method: the proxy's own fields are not the bean's). */
		public int runs() {
			return this.runs.get();
		}

		@TargetLeased(target = "#id.(", actor = "usernamegen")
		public String unparsable(String id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@TargetLeased(target = "", actor = "usernamegen")
		public String blank(String id) {
			this.runs.incrementAndGet();
			return "ran";
		}

	}

	/** A store whose backend is unreachable: typed results, never exceptions. */
	static class UnavailableStore extends DelegatingStore {

		@Override
		public LeaseResult acquire(io.starintel.lease.core.AcquireRequest request) {
			return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
		}

	}

}
