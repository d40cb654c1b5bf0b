package io.starintel.lease.it.job;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServers;
import io.starintel.lease.test.FaultProxy;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.job.LeaseAcquisitionException;
import io.starintel.lease.job.LeaseLostEvent;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.redis.RedisLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @TargetLeased} jobs against real Redis, each "instance" an independent SpringApplication context. Every test
 * uses its own random program id, so it can run beside other suites on the same server (nothing is flushed).
 */
class LeasedJobRedisTests {

	private final String program = "program-it-" + Identifiers.generate("p").substring(2, 14).toLowerCase();

	private final LeasedJobApp.Shared shared = new LeasedJobApp.Shared();

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@AfterEach
	void close() throws InterruptedException {
		this.shared.release.countDown();
		// bounded: once in a CI run a context's close waited forever in Lettuce's ClientResources shutdown (a netty
		// future that never completed, after every test assertion had passed); cleanup must not hang the suite
		Thread closing = new Thread(() -> this.contexts.forEach(ConfigurableApplicationContext::close),
				"leased-job-tests-close");
		closing.setDaemon(true);
		closing.start();
		closing.join(60_000);
		if (closing.isAlive()) {
			StringBuilder stack = new StringBuilder();
			for (StackTraceElement frame : closing.getStackTrace()) {
				stack.append("\n\tat ").append(frame);
			}
			System.err.println("LeasedJobRedisTests: closing the test's applications took over 60 s; left to the "
					+ "JVM's exit. Stuck in:" + stack);
		}
	}

	private ConfigurableApplicationContext instance(String instanceId) {
		return instance(instanceId, RedisServers.uri().toString());
	}

	private ConfigurableApplicationContext instance(String instanceId, String redisUrl, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(LeasedJobApp.class)
			.web(WebApplicationType.NONE)
			.bannerMode(org.springframework.boot.Banner.Mode.OFF)
			.initializers((applicationContext) -> {
				applicationContext.getBeanFactory().registerSingleton("shared", this.shared);
				applicationContext.getBeanFactory().registerSingleton("meterRegistry", new SimpleMeterRegistry());
			})
			.properties("spring.data.redis.url=" + redisUrl, "starintel.lease.tenant=tenant-it",
					"starintel.lease.program=" + this.program, "starintel.lease.owner.service-principal=prn_it_worker",
					"starintel.lease.owner.service-instance-id=" + instanceId, "starintel.lease.ttl.minimum=100ms")
			.properties(properties)
			.run();
		this.contexts.add(context);
		return context;
	}

	private LockIdentity identity(String target) {
		return LockIdentity.of("tenant-it", this.program, "starintel-target", target, "usernamegen", "default",
				"default");
	}

	private ResultCode inspect(ConfigurableApplicationContext context, String target) {
		return context.getBean(LeaseStore.class)
			.inspect(InspectRequest.byIdentity(identity(target), "corr_it", Instant.now().plusSeconds(5)))
			.code();
	}

	/**
	 * A context stopped and started again (Spring's test context cache pauses a cached context while another one runs
	 * and starts it on reuse): the Lettuce factory's stop shut its client down and its start made a new one, and the
	 * store follows it: leased jobs and store calls work again, on Redis.
	 */
	@Test
	void aStoppedContextStartedAgainRunsLeasedJobsOnRedisAgain() {
		ConfigurableApplicationContext context = instance("instance_restart");
		LeasedJobApp.Jobs jobs = context.getBean(LeasedJobApp.Jobs.class);
		assertThat(jobs.leaseId("target_restart_before")).startsWith("lease_");
		context.stop();
		context.start();
		assertThat(inspect(context, "target_restart_after")).as("a store call after the restart")
			.isEqualTo(ResultCode.LEASE_NOT_FOUND);
		assertThat(jobs.leaseId("target_restart_after")).as("a leased job after the restart").startsWith("lease_");
	}

	@Test
	void twoInstancesRacingOnOneTargetRunTheMethodExactlyOnce() throws Exception {
		ConfigurableApplicationContext a = instance("instance_a");
		ConfigurableApplicationContext b = instance("instance_b");
		assertThat(a.getBean(LeaseStore.class)).isInstanceOf(RedisLeaseStore.class);
		LeasedJobApp.Jobs jobsA = a.getBean(LeasedJobApp.Jobs.class);
		LeasedJobApp.Jobs jobsB = b.getBean(LeasedJobApp.Jobs.class);
		CountDownLatch gate = new CountDownLatch(1);
		CompletableFuture<Optional<String>> callA = CompletableFuture.supplyAsync(() -> call(gate, jobsA));
		CompletableFuture<Optional<String>> callB = CompletableFuture.supplyAsync(() -> call(gate, jobsB));
		gate.countDown();
		Optional<String> resultA = callA.get(20, TimeUnit.SECONDS);
		Optional<String> resultB = callB.get(20, TimeUnit.SECONDS);
		assertThat(this.shared.runs).hasValue(1);
		assertThat(List.of(resultA, resultB)).filteredOn(Optional::isPresent).hasSize(1);
		assertThat(List.of(resultA, resultB)).filteredOn(Optional::isEmpty).hasSize(1);
		ConfigurableApplicationContext loser = resultA.isEmpty() ? a : b;
		assertThat(loser.getBean(MeterRegistry.class)
			.get(LeaseService.OPERATION_TIMER).tag("operation", "acquire").tag("code", "lease_conflict").timer()
			.count()).isEqualTo(1);
		assertThat(inspect(a, "target_race")).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	private Optional<String> call(CountDownLatch gate, LeasedJobApp.Jobs jobs) {
		try {
			gate.await();
			return jobs.race("target_race");
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			this.shared.oneReturned.countDown();
		}
	}

	@Test
	void aTwoSecondLeaseIsHeldForFifteenSecondsByRenewalWithoutLoss() throws Exception {
		ConfigurableApplicationContext a = instance("instance_a");
		ConfigurableApplicationContext b = instance("instance_b");
		CompletableFuture<ResultCode> hold = CompletableFuture
			.supplyAsync(() -> holdFor(a.getBean(LeasedJobApp.Jobs.class), 15));
		assertThat(this.shared.started.await(10, TimeUnit.SECONDS)).isTrue();
		// meanwhile the other instance is refused
		assertThatThrownBy(() -> b.getBean(LeasedJobApp.Jobs.class).race("target_hold").orElseThrow())
			.isInstanceOf(java.util.NoSuchElementException.class);
		assertThat(hold.get(30, TimeUnit.SECONDS)).isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		LeaseContext context = this.shared.context;
		assertThat(context.isLost()).isFalse();
		assertThat(context.expiresAt()).isAfter(context.lease().acquiredAt().plusSeconds(13));
		assertThat(a.getBean(LeasedJobApp.Events.class).lost).isEmpty();
		assertThat(a.getBean(MeterRegistry.class)
			.get(LeaseService.OPERATION_TIMER).tag("operation", "renew").tag("code", "lease_renewed").timer()
			.count()).isGreaterThanOrEqualTo(10);
		assertThat(a.getBean(MeterRegistry.class).find(LeaseService.OPERATION_TIMER).tag("operation", "renew")
			.tag("code", "lease_lost").timer()).isNull();
		assertThat(inspect(a, "target_hold")).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	private ResultCode holdFor(LeasedJobApp.Jobs jobs, long seconds) {
		try {
			return jobs.holdFor("target_hold", seconds);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void revokingTheLeaseCancelsTheJobWithinTheSafetyMarginAndItsContextReadsLost() throws Exception {
		ConfigurableApplicationContext a = instance("instance_a");
		CompletableFuture<Void> job = CompletableFuture
			.runAsync(() -> a.getBean(LeasedJobApp.Jobs.class).blockUntilCancelled("target_revoke"));
		assertThat(this.shared.started.await(10, TimeUnit.SECONDS)).isTrue();
		LeaseContext context = this.shared.context;
		Instant revokedAt = Instant.now();
		assertThat(a.getBean(LeaseStore.class).revoke(new AdminRequest(Operation.REVOKE, context.identity(),
				Identifiers.generate("request"), Instant.now().plusSeconds(5), context.leaseId(),
				context.fencingToken(), "prn_admin", "key_admin", "incident-it-1")).code())
			.isEqualTo(ResultCode.LEASE_REVOKED);
		job.get(10, TimeUnit.SECONDS);
		assertThat(this.shared.interrupted).isTrue();
		// renewal runs every ~1 s (ttl 3 s / 3): cancelled before the revoked lease's last known expiry
		assertThat(this.shared.interruptedAt).isBefore(context.expiresAt());
		assertThat(Duration.between(revokedAt, this.shared.interruptedAt)).isLessThan(Duration.ofSeconds(3));
		assertThat(context.isLost()).isTrue();
		assertThat(context.holdsAuthority()).isFalse();
		assertThat(a.getBean(LeasedJobApp.Events.class).lost).singleElement()
			.extracting(LeaseLostEvent::reason)
			.isIn(Reason.STALE_LEASE, Reason.EXPIRED);
	}

	@Test
	void aPartitionThatSilencesRedisCancelsTheJobBeforeTheLeaseExpires() throws Exception {
		URI uri = RedisServers.uri();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			ConfigurableApplicationContext a = instance("instance_a", "redis://127.0.0.1:" + proxy.port());
			CompletableFuture<Void> job = CompletableFuture
				.runAsync(() -> a.getBean(LeasedJobApp.Jobs.class).blockUntilCancelled("target_partition"));
			assertThat(this.shared.started.await(10, TimeUnit.SECONDS)).isTrue();
			LeaseContext context = this.shared.context;
			proxy.dropReplies(true);
			job.get(15, TimeUnit.SECONDS);
			assertThat(this.shared.interrupted).isTrue();
			// contract: backend unavailable past the safety margin signals cancellation before expiry
			assertThat(this.shared.interruptedAt).isBefore(context.expiresAt());
			assertThat(context.lossReason()).hasValueSatisfying(
					(reason) -> assertThat(reason).isIn(Reason.REPLY_LOST, Reason.BACKEND_UNREACHABLE));
			assertThat(a.getBean(LeasedJobApp.Events.class).lost).hasSize(1);
			a.close(); // before the proxy goes away
		}
	}

	@Test
	void reachingTheMaximumLifetimeStopsRenewalAndCancelsTheJob() throws Exception {
		ConfigurableApplicationContext a = instance("instance_a");
		CompletableFuture.runAsync(() -> a.getBean(LeasedJobApp.Jobs.class).outliveLifetime("target_lifetime"))
			.get(15, TimeUnit.SECONDS);
		LeaseContext context = this.shared.context;
		assertThat(this.shared.interrupted).isTrue();
		assertThat(context.lossReason()).contains(Reason.MAXIMUM_LIFETIME_REACHED);
		assertThat(context.expiresAt()).isEqualTo(context.lease().lifetimeEnd());
	}

	/** Starts 20 jobs that ignore cancellation on targets {@code prefix-0..19} and waits until all hold a lease. */
	private ExecutorService twentyHeldJobs(ConfigurableApplicationContext context, String prefix) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(20);
		LeasedJobApp.Jobs jobs = context.getBean(LeasedJobApp.Jobs.class);
		for (int i = 0; i < 20; i++) {
			String target = prefix + "-" + i;
			pool.submit(() -> jobs.holdIgnoringCancellation(target));
		}
		assertThat(this.shared.holding.await(30, TimeUnit.SECONDS)).isTrue();
		return pool;
	}

	/** Stops the leased jobs (the shutdown lifecycle bean, as context close does) and answers how long it took. */
	private static Duration stopLeasedJobs(ConfigurableApplicationContext context) {
		long started = System.nanoTime();
		context.getBean("leasedJobsShutdown", SmartLifecycle.class).stop();
		return Duration.ofNanos(System.nanoTime() - started);
	}

	@Test
	void shutdownReleasesTwentyHeldLeasesWithinTheShutdownTimeout() throws Exception {
		ConfigurableApplicationContext a = instance("instance_a", RedisServers.uri().toString(),
				"starintel.lease.job.cancellation=none", "starintel.lease.job.shutdown-timeout=3s");
		ExecutorService pool = twentyHeldJobs(a, "target_stop");
		try {
			Duration took = stopLeasedJobs(a);
			// held jobs that ignore cancellation never end by themselves: waiting for them would never return
			assertThat(took).as("shutdown-timeout 3s + margin").isLessThan(Duration.ofSeconds(10));
			for (int i = 0; i < 20; i++) {
				assertThat(inspect(a, "target_stop-" + i)).as("target_stop-" + i).isEqualTo(ResultCode.LEASE_NOT_FOUND);
			}
		}
		finally {
			this.shared.release.countDown();
			pool.shutdown();
		}
	}

	/**
	 * Redis stops answering (the proxy holds every byte) while 20 jobs that ignore cancellation hold leases: the stop
	 * still ends within the shutdown timeout (3 s) plus a margin, although each store call may wait for the 20 s
	 * operation timeout (released one after another, the first release alone would overrun it).
	 */
	@Test
	void shutdownWithASilentBackendEndsWithinTheShutdownTimeout() throws Exception {
		URI uri = RedisServers.uri();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			ConfigurableApplicationContext a = instance("instance_a", "redis://127.0.0.1:" + proxy.port(),
					"starintel.lease.job.cancellation=none", "starintel.lease.job.shutdown-timeout=3s",
					"starintel.lease.request.timeout=20s");
			ExecutorService pool = twentyHeldJobs(a, "target_silent");
			try {
				proxy.pause(true);
				Duration took = stopLeasedJobs(a);
				assertThat(took).as("shutdown-timeout 3s + margin, not one 20 s release").isLessThan(Duration.ofSeconds(10));
			}
			finally {
				proxy.pause(false);
				this.shared.release.countDown();
				pool.shutdown();
				a.close(); // before the proxy goes away
			}
		}
	}

	private static double renewals(ConfigurableApplicationContext context) {
		return context.getBean(MeterRegistry.class)
			.find(LeaseService.OPERATION_TIMER)
			.tag("operation", "renew")
			.tag("code", "lease_renewed")
			.timers()
			.stream()
			.mapToDouble(io.micrometer.core.instrument.Timer::count)
			.sum();
	}

	/**
	 * A job acquired with a 2 s TTL renews through its {@link LeaseContext} with 20 s: the backend record has the new
	 * TTL and expiry, the context reports it, and the scheduler follows it (with the old TTL it renews every ~0.7 s;
	 * with the new one not within the next 3 s). A TTL above the policy's maximum is refused as
	 * {@code invalid_lease_request} without losing the lease.
	 */
	@Test
	void aJobRenewsWithANewTtlThroughItsContextAndTheSchedulerFollowsIt() throws Exception {
		ConfigurableApplicationContext a = instance("instance_a");
		CompletableFuture<Void> job = CompletableFuture.runAsync(() -> {
			try {
				a.getBean(LeasedJobApp.Jobs.class).renewWithTtl("target_new_ttl", Duration.ofSeconds(20));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		try {
			assertThat(this.shared.started.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(this.shared.renewals).hasSize(4);
			assertThat(this.shared.renewals.subList(0, 3)).extracting(LeaseResult::code)
				.containsOnly(ResultCode.INVALID_LEASE_REQUEST);
			LeaseResult renewed = this.shared.renewals.get(3);
			assertThat(renewed.code()).as(renewed.toString()).isEqualTo(ResultCode.LEASE_RENEWED);
			LeaseContext context = this.shared.context;
			assertThat(context.ttlMs()).isEqualTo(20_000);
			assertThat(context.expiresAt()).isEqualTo(renewed.lease().expiresAt());
			LeaseResult inspected = a.getBean(LeaseStore.class)
				.inspect(InspectRequest.byIdentity(identity("target_new_ttl"), "corr_it", Instant.now().plusSeconds(5)));
			assertThat(inspected.lease().ttlMs()).isEqualTo(20_000);
			assertThat(inspected.lease().fencingToken()).isEqualTo(context.fencingToken());
			assertThat(Duration.between(inspected.lease().renewedAt(), inspected.lease().expiresAt()))
				.isEqualTo(Duration.ofSeconds(20));
			double before = renewals(a);
			// at the new TTL's pace no renewal is due for the next 3 s: none may happen during them
			await("no scheduled renewal in 3 s at the new TTL's pace").during(Duration.ofSeconds(3))
				.atMost(Duration.ofSeconds(5))
				.until(() -> renewals(a) - before == 0);
			assertThat(context.isLost()).isFalse();
		}
		finally {
			this.shared.release.countDown();
			job.get(30, TimeUnit.SECONDS);
		}
	}

	private static double count(ConfigurableApplicationContext context, String operation, ResultCode code) {
		return context.getBean(MeterRegistry.class)
			.find(LeaseService.OPERATION_TIMER)
			.tag("operation", operation)
			.tag("code", code.wireName())
			.timers()
			.stream()
			.mapToDouble(io.micrometer.core.instrument.Timer::count)
			.sum();
	}

	/**
	 * A caller whose interrupt flag is already set: the lease is acquired (not committed in Redis and answered
	 * {@code lease_outcome_unknown}, the target then locked for its TTL), the method runs, the release is answered,
	 * and the caller keeps its flag.
	 */
	@Test
	void anInterruptedCallerRunsUnderItsLeaseAndKeepsItsInterrupt() {
		ConfigurableApplicationContext a = instance("instance_a");
		LeasedJobApp.Jobs jobs = a.getBean(LeasedJobApp.Jobs.class);
		String leaseId;
		boolean interruptedAfter;
		Thread.currentThread().interrupt();
		try {
			leaseId = jobs.leaseId("target_interrupted_caller");
		}
		finally {
			interruptedAfter = Thread.interrupted();
		}
		assertThat(interruptedAfter).as("the caller's interrupt flag is kept").isTrue();
		assertThat(leaseId).startsWith("lease_");
		assertThat(count(a, "acquire", ResultCode.LEASE_ACQUIRED)).isEqualTo(1);
		assertThat(count(a, "release", ResultCode.LEASE_RELEASED)).isEqualTo(1);
		assertThat(inspect(a, "target_interrupted_caller")).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	/** A job that restores its interrupt flag before it returns: its release is answered, and its flag kept. */
	@Test
	void aJobThatEndsWithItsInterruptFlagSetHasItsReleaseAnswered() {
		ConfigurableApplicationContext a = instance("instance_a");
		boolean interruptedAfter;
		try {
			a.getBean(LeasedJobApp.Jobs.class).endInterrupted("target_ends_interrupted");
		}
		finally {
			interruptedAfter = Thread.interrupted();
		}
		assertThat(interruptedAfter).as("the job's interrupt flag reaches the caller").isTrue();
		assertThat(count(a, "release", ResultCode.LEASE_RELEASED)).isEqualTo(1);
		assertThat(count(a, "release", ResultCode.LEASE_OUTCOME_UNKNOWN)).isZero();
		assertThat(inspect(a, "target_ends_interrupted")).isEqualTo(ResultCode.LEASE_NOT_FOUND);
	}

	/**
	 * Redis silent (the proxy holds every byte): a leased call is refused as outcome-unknown, the acquire and its
	 * resolve sharing one request timeout (before: a deadline each, two timeouts), so no resolve is sent once the
	 * acquire used it up.
	 */
	@Test
	void withRedisSilentTheAcquireAndItsResolveShareOneRequestTimeout() throws Exception {
		URI uri = RedisServers.uri();
		try (FaultProxy proxy = new FaultProxy(new InetSocketAddress(uri.getHost(), uri.getPort()))) {
			ConfigurableApplicationContext a = instance("instance_a", "redis://127.0.0.1:" + proxy.port(),
					"starintel.lease.request.timeout=1s");
			LeasedJobApp.Jobs jobs = a.getBean(LeasedJobApp.Jobs.class);
			try {
				assertThat(jobs.leaseId("target_silent_warm")).startsWith("lease_"); // connected, program known
				proxy.pause(true);
				assertThatThrownBy(() -> jobs.leaseId("target_silent_acquire"))
					.isInstanceOf(LeaseAcquisitionException.class)
					.satisfies((ex) -> assertThat(((LeaseAcquisitionException) ex).code())
						.isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN));
				// the acquire used the whole deadline it shares with its resolve: no resolve was sent (before: a
				// resolve with a deadline of its own, a second request timeout; no timing margin asserted here)
				assertThat(count(a, "resolve", ResultCode.LEASE_OUTCOME_UNKNOWN)
						+ count(a, "resolve", ResultCode.LEASE_BACKEND_UNAVAILABLE)).isZero();
			}
			finally {
				proxy.pause(false);
				a.close(); // before the proxy goes away
			}
		}
	}

	@Test
	void anExceptionInTheJobReleasesTheLease() {
		ConfigurableApplicationContext a = instance("instance_a");
		assertThatThrownBy(() -> a.getBean(LeasedJobApp.Jobs.class).fail("target_fail"))
			.isInstanceOf(IllegalStateException.class);
		assertThat(this.shared.context).isNotNull();
		assertThat(inspect(a, "target_fail")).isEqualTo(ResultCode.LEASE_NOT_FOUND);
		// released, not merely expired: a new acquisition gets a greater token right away
		LeaseService service = a.getBean(LeaseService.class);
		assertThat(service.acquire(io.starintel.lease.core.AcquireRequest
			.builder(identity("target_fail"), new io.starintel.lease.core.LeaseOwner("prn_x", "client_x", "key_x",
					"instance_x"))
			.ttl(Duration.ofSeconds(5))
			.maximumLifetime(Duration.ofMinutes(1))
			.build(service.newId(), service.deadline()))
			.lease()
			.fencingToken()).isGreaterThan(this.shared.context.fencingToken());
	}

}
