package io.starintel.lease.it.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.RedisLeaseStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What lets sweepers find and share the work (and Valkey in {@link ValkeySweepSharingTests}): the registry of
 * programs with leases (a program used by any process shows up, with no configuration), the per-program sweep claim
 * (one claimant at a time; another gets {@code CLAIMED} and nothing is done; the claim lapses), and the next due
 * time a sweep reports.
 */
class RedisSweepSharingTests {

	private LettuceConnectionFactory factory;

	private RedisLeaseStore store;

	private String program;

	@BeforeEach
	void connect(TestInfo testInfo) {
		this.factory = RedisServers.factory(RedisServerKind.of(testInfo));
		this.store = new RedisLeaseStore(this.factory, RedisServers.POLICY, LeaseAlerts.LOG);
		this.program = "share-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void close() {
		this.store.close();
		this.factory.destroy();
	}

	private ProgramScope scope(String suffix) {
		return ProgramScope.of("tenant-share", this.program + suffix);
	}

	private LeaseRecord acquire(ProgramScope scope, String target, long ttlMs) {
		LockIdentity identity = LockIdentity.of(scope.tenantId(), scope.programId(), "starintel-target", target,
				"usernamegen", "default", null);
		LeaseResult result = this.store.acquire(new AcquireRequest(identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(30), new LeaseOwner("alice", "c", "k", "instance-1"), ttlMs, 300_000, "e",
				"j", "t", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	@Test
	void programsWithLeasesAreListedWithoutConfiguration() {
		acquire(scope("-a"), "t1", 60_000);
		acquire(scope("-b"), "t1", 60_000);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			ActivePrograms listed = this.store.activePrograms(10_000, Instant.now().plusSeconds(5));
			assertThat(listed.status()).isEqualTo(ActivePrograms.Status.LISTED);
			assertThat(listed.programs()).contains(scope("-a"), scope("-b"));
			assertThat(listed.total()).isGreaterThanOrEqualTo(listed.programs().size());
		});
		ActivePrograms one = this.store.activePrograms(1, Instant.now().plusSeconds(5));
		assertThat(one.programs()).hasSize(1);
		assertThat(this.store.activePrograms(1, Instant.now().minusSeconds(1)).status())
			.isEqualTo(ActivePrograms.Status.DEADLINE_EXCEEDED);
	}

	@Test
	void oneClaimantAtATimeSweepsAProgramAndTheClaimLapses() {
		ProgramScope scope = scope("");
		LeaseRecord lease = acquire(scope, "t1", 60_000);
		Duration claim = Duration.ofSeconds(2);
		SweepResult first = this.store.sweepExpired(request(scope, "instance-a", claim));
		assertThat(first.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(first.nextDueAt()).isEqualTo(lease.expiresAt());
		SweepResult other = this.store.sweepExpired(request(scope, "instance-b", claim));
		assertThat(other.status()).isEqualTo(SweepResult.Status.CLAIMED);
		assertThat(other.expired()).isEmpty();
		// the holder keeps its claim by sweeping; a call without a claimant is never refused
		assertThat(this.store.sweepExpired(request(scope, "instance-a", claim)).status())
			.isEqualTo(SweepResult.Status.SWEPT);
		assertThat(this.store.sweepExpired(new SweepRequest(scope, 10, Instant.now().plusSeconds(5))).status())
			.isEqualTo(SweepResult.Status.SWEPT);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.store.sweepExpired(request(scope, "instance-b", claim)).isSwept());
		assertThat(this.store.sweepExpired(request(scope, "instance-a", claim)).status())
			.isEqualTo(SweepResult.Status.CLAIMED);
	}

	@Test
	void anEmptyQueueHasNoNextDueTime() {
		ProgramScope scope = scope("");
		SweepResult swept = this.store.sweepExpired(new SweepRequest(scope, 10, Instant.now().plusSeconds(5)));
		assertThat(swept.status()).isEqualTo(SweepResult.Status.SWEPT);
		assertThat(swept.nextDueAt()).isNull();
	}

	private static SweepRequest request(ProgramScope scope, String claimant, Duration claim) {
		return new SweepRequest(scope, 10, Instant.now().plusSeconds(5), claimant, claim);
	}

}
