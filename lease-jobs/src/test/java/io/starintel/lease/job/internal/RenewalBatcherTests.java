package io.starintel.lease.job.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.DelegatingStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RenewalBatcher}: a renewal queued for a batch whose lease's job ended meanwhile is not sent (its release may
 * already be on its way, and a renewal after it would be answered {@code lease_lost}).
 */
class RenewalBatcherTests {

	private final ScheduledThreadPoolExecutor scheduling = new ScheduledThreadPoolExecutor(1);

	private final RecordingStore store = new RecordingStore();

	private final LeaseService service = new LeaseService(this.store, Clock.systemUTC(), Duration.ofSeconds(5),
			new SimpleMeterRegistry(), ObservationRegistry.NOOP);

	private final LeaseRenewalScheduler scheduler = new LeaseRenewalScheduler(this.service, Clock.systemUTC(),
			Duration.ofMillis(300), (event) -> {
			}, 1);

	private final RenewalBatcher batcher = new RenewalBatcher(this.service, this.scheduling);

	@AfterEach
	void close() {
		this.batcher.shutdownNow();
		this.scheduling.shutdownNow();
		this.scheduler.close();
	}

	/** Records the lease id of every renewal it receives; counts down once the open lease's arrives. */
	static final class RecordingStore extends DelegatingStore {

		final List<String> renewed = new CopyOnWriteArrayList<>();

		final CountDownLatch openRenewed = new CountDownLatch(1);

		volatile String openLeaseId;

		@Override
		public LeaseResult renew(RenewRequest request) {
			this.renewed.add(request.handle().leaseId());
			if (request.handle().leaseId().equals(this.openLeaseId)) {
				this.openRenewed.countDown();
			}
			return super.renew(request);
		}

	}

	@Test
	void aQueuedRenewalWhoseJobEndedIsNotSentWithItsBatch() throws Exception {
		// minutes of TTL: the scheduler's own ticks stay far away; this test drives the batcher by hand
		LeaseRenewal ended = this.scheduler.register(acquire("target_ended"), () -> {
		});
		LeaseRenewal open = this.scheduler.register(acquire("target_open"), () -> {
		});
		this.store.openLeaseId = open.context().leaseId();
		// the scheduling thread waits on a gate, so both renewals are queued for one batch before it can be built
		CountDownLatch gate = new CountDownLatch(1);
		this.scheduling.execute(() -> awaitQuietly(gate));
		this.batcher.enqueue(ended, ended.context().expiresAt());
		this.batcher.enqueue(open, open.context().expiresAt());
		ended.close(); // the job ended while its renewal waited for the batch
		gate.countDown();

		assertThat(this.store.openRenewed.await(10, TimeUnit.SECONDS)).isTrue();
		// one batch, in queue order: had the ended lease's renewal been sent, it would have reached the store first
		assertThat(this.store.renewed).containsExactly(open.context().leaseId());
		assertThat(open.awaitRenewalAnswered(open.context().expiresAt())).isTrue();
		assertThat(ended.awaitRenewalAnswered(ended.context().expiresAt())).isTrue();
	}

	private LeaseContext acquire(String target) {
		LockIdentity identity = LockIdentity.of("tenant-main", "program-a", "starintel-target", target, "usernamegen",
				"default", "default");
		LeaseResult result = this.service
			.acquire(AcquireRequest.builder(identity, new LeaseOwner("prn_a", "client_a", "key_a", "instance_a"))
				.ttl(Duration.ofMinutes(5))
				.maximumLifetime(Duration.ofMinutes(10))
				.build(this.service.newId(), this.service.deadline()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return new LeaseContext(result.lease());
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
