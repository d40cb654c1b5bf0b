package io.starintel.lease.testing.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The in-memory store decides the expiring call ({@code TargetLeaseTester.expire}) at a backend time past the lease's
 * expiry; a job's call at the same moment, on another thread, is decided at the real time: its lease is not expired
 * and its deadline has not passed.
 */
class MutableBackendClockTests {

	private final MutableBackendClock clock = new MutableBackendClock(Clock.systemUTC());

	private final InMemoryLeaseStore store = new InMemoryLeaseStore(this.clock, LeasePolicy.defaults());

	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	@AfterEach
	void stop() {
		this.otherThread.shutdownNow();
	}

	@Test
	void onlyTheThreadPuttingTimeAheadSeesItOtherThreadsCallingMeanwhileSeeTheRealTime() throws Exception {
		LeaseRecord expiring = acquire("expiring");
		LeaseRecord busy = acquire("busy");
		Duration ahead = Duration.ofMillis(expiring.ttlMs()).plusMinutes(1);
		LeaseResult[] busyCommit = new LeaseResult[1];
		Instant[] otherThreadSaw = new Instant[1];
		LeaseResult expired = this.clock.ahead(ahead, () -> {
			// while this thread's time is ahead, a job's fenced commit on another thread (as a running BusyJob's)
			try {
				this.otherThread.submit(() -> {
					otherThreadSaw[0] = this.clock.instant();
					busyCommit[0] = this.store.authorizeCommit(new CommitRequest(busy.handle(),
							Identifiers.generate("corr"), Instant.now().plusSeconds(5)));
				}).get(10, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			return this.store.inspect(InspectRequest.byLeaseId(expiring.identity().scope(), expiring.leaseId(),
					Identifiers.generate("corr"), this.clock.instant().plusSeconds(5)));
		});
		assertThat(expired.code()).as("the expiring call, decided past the lease's expiry")
			.isNotEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(busyCommit[0].code()).as("the other job's fenced commit meanwhile: %s", busyCommit[0])
			.isEqualTo(ResultCode.LEASE_COMMIT_AUTHORIZED);
		assertThat(Duration.between(Instant.now(), otherThreadSaw[0]).abs())
			.as("backend time of the other thread meanwhile")
			.isLessThan(Duration.ofSeconds(5));
		assertThat(this.store
			.inspect(InspectRequest.byLeaseId(busy.identity().scope(), busy.leaseId(), Identifiers.generate("corr"),
					Instant.now().plusSeconds(5)))
			.code()).as("the other job's lease").isEqualTo(ResultCode.LEASE_INSPECTED);
		assertThat(Duration.between(Instant.now(), this.clock.instant()).abs()).as("backend time afterwards")
			.isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void timeIsOnlyPutAhead() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.clock.ahead(Duration.ofMillis(-1), () -> null));
	}

	private LeaseRecord acquire(String target) {
		LockIdentity identity = LockIdentity.of("tenant-test", "program-test", "ns", target, "actor", "default", null);
		LeaseResult result = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("req"),
				Instant.now().plusSeconds(5), new LeaseOwner("worker-1", "client-1", "key-1", "instance-1"), 30_000,
				300_000, "exec-1", "job-1", "trace-1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

}
