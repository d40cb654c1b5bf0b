package io.starintel.lease.job;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.job.internal.LeaseRenewal;
import io.starintel.lease.job.internal.LeaseRenewalScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/** The shared renewal scheduler: renewal, transient failures, loss before expiry by the safety margin. */
class LeaseRenewalSchedulerTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-main", "program-a", "starintel-target",
			"target_sched", "usernamegen", "default", "default");

	private final List<LeaseLostEvent> events = new CopyOnWriteArrayList<>();

	private LeaseRenewalScheduler scheduler;

	@AfterEach
	void close() {
		if (this.scheduler != null) {
			this.scheduler.close();
		}
	}

	private LeaseRenewalScheduler scheduler(LeaseService service) {
		this.scheduler = new LeaseRenewalScheduler(service, Clock.systemUTC(), Duration.ofMillis(300),
				this.events::add, 1);
		return this.scheduler;
	}

	private static LeaseService service(DelegatingStore store) {
		return new LeaseService(store, Clock.systemUTC(), Duration.ofSeconds(5), new SimpleMeterRegistry(),
				ObservationRegistry.NOOP);
	}

	private static LeaseContext acquire(LeaseService service, Duration ttl) {
		LeaseResult result = service
			.acquire(AcquireRequest.builder(IDENTITY, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"))
				.ttl(ttl)
				.maximumLifetime(Duration.ofMinutes(1))
				.build(service.newId(), service.deadline()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return new LeaseContext(result.lease());
	}

	/** A store with TTLs from 100 ms whose renewals can be made to fail. */
	static class FlakyStore extends DelegatingStore {

		final AtomicInteger failuresLeft = new AtomicInteger();

		final AtomicInteger renewals = new AtomicInteger();

		FlakyStore() {
			super(LeasePolicy.defaults().withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10)));
		}

		@Override
		public LeaseResult renew(RenewRequest request) {
			this.renewals.incrementAndGet();
			if (this.failuresLeft.getAndUpdate((n) -> (n > 0) ? n - 1 : n) != 0) {
				return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
			}
			return super.renew(request);
		}

	}

	@Test
	void aTransientRenewalFailureIsRetriedBeforeTheMarginWithoutLoss() throws Exception {
		FlakyStore store = new FlakyStore();
		store.failuresLeft.set(1);
		LeaseService service = service(store);
		LeaseContext context = acquire(service, Duration.ofSeconds(3));
		Instant firstExpiry = context.expiresAt();
		LeaseRenewal registration = scheduler(service).register(context, () -> {
		});
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
			.until(() -> context.expiresAt().isAfter(firstExpiry) && store.renewals.get() >= 2);
		assertThat(context.isLost()).isFalse();
		assertThat(this.scheduler.heldCount()).isEqualTo(1);
		registration.close();
		assertThat(this.scheduler.heldCount()).isZero();
		assertThat(this.events).isEmpty();
	}

	@Test
	void aBackendThatStaysUnavailableLosesTheLeaseBeforeItsExpiry() throws Exception {
		FlakyStore store = new FlakyStore();
		store.failuresLeft.set(-1); // forever
		LeaseService service = service(store);
		LeaseContext context = acquire(service, Duration.ofMillis(1500));
		AtomicReference<Instant> cancelledAt = new AtomicReference<>();
		CountDownLatch cancelled = new CountDownLatch(1);
		scheduler(service).register(context, () -> {
			cancelledAt.set(Instant.now());
			cancelled.countDown();
		});
		assertThat(cancelled.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(context.lossReason()).contains(Reason.BACKEND_UNREACHABLE);
		// contract: loss is signalled by the safety margin, not after the lease already expired
		assertThat(cancelledAt.get()).isBefore(context.expiresAt());
		assertThat(this.events).singleElement().extracting(LeaseLostEvent::reason).isEqualTo(Reason.BACKEND_UNREACHABLE);
	}

	@Test
	void aRenewalThatNeverAnswersIsCutAtTheMarginAndLosesTheLeaseBeforeItsExpiry() throws Exception {
		CountDownLatch never = new CountDownLatch(1);
		FlakyStore store = new FlakyStore() {
			@Override
			public LeaseResult renew(RenewRequest request) {
				// a backend that swallows the reply: the store waits until the request's deadline, then gives up
				long waitMs = Math.max(0, request.deadlineAt().toEpochMilli() - System.currentTimeMillis());
				try {
					never.await(waitMs, TimeUnit.MILLISECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return LeaseResult.failure(ResultCode.LEASE_OUTCOME_UNKNOWN, Reason.REPLY_LOST, null);
			}
		};
		LeaseService service = service(store);
		LeaseContext context = acquire(service, Duration.ofSeconds(3));
		AtomicReference<Instant> cancelledAt = new AtomicReference<>();
		CountDownLatch cancelled = new CountDownLatch(1);
		scheduler(service).register(context, () -> {
			cancelledAt.set(Instant.now());
			cancelled.countDown();
		});
		assertThat(cancelled.await(15, TimeUnit.SECONDS)).isTrue();
		assertThat(context.lossReason()).contains(Reason.REPLY_LOST);
		// the operation timeout is 5 s, but the renewal's deadline was the margin before the 3 s expiry
		assertThat(cancelledAt.get()).isBefore(context.expiresAt());
	}

	@Test
	void aContextMarkedLostElsewhereIsCancelledAtTheNextTickWithItsOwnReason() throws Exception {
		LeaseService service = service(new FlakyStore());
		LeaseContext context = acquire(service, Duration.ofSeconds(3));
		CountDownLatch cancelled = new CountDownLatch(1);
		scheduler(service).register(context, cancelled::countDown);
		context.markLost(Reason.TOKEN_BELOW_HIGH_WATER_MARK); // e.g. a fenced write was rejected
		assertThat(cancelled.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.events).singleElement().extracting(LeaseLostEvent::reason)
			.isEqualTo(Reason.TOKEN_BELOW_HIGH_WATER_MARK);
		assertThat(this.scheduler.heldCount()).isZero();
	}

}
