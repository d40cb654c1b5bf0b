package io.starintel.lease.it.failover;

import java.time.Duration;
import java.util.function.Supplier;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.MutatingRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.it.redis.RedisServerKind;
import io.starintel.lease.store.redis.RedisLeaseStore;
import io.starintel.lease.store.redis.internal.RedisKeys;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replica wait of issue 36, through the store's public API on a primary with one replica
 * ({@link ReplicatedRedis}, the store connected to the primary directly): a state change is reported successful only
 * once the replica has it. This is the test that fails when the replica wait is removed:
 * <ul>
 * <li>with the replication link paused, no acquire, renew, release, revoke or high-water-mark-raising commit
 * authorization is reported successful: each is {@code lease_outcome_unknown} (it happened on the primary, the
 * replica does not have it); after the link resumes, each resolves by request id to its success, and new changes
 * are reported successful again;</li>
 * <li>with the link delayed, whatever is reported successful is already on the replica when the answer arrives.</li>
 * </ul>
 * Today the store answers as soon as the primary has applied a change: every assertion about the paused and
 * delayed link fails.
 */
class ReplicaAcknowledgementTests {

	private static final Duration TTL = Duration.ofSeconds(60);

	private static ReplicatedRedis redis;

	private static FailoverClients.Client client;

	private static RedisLeaseStore store;

	@BeforeAll
	static void start(TestInfo testInfo) {
		redis = ReplicatedRedis.start(RedisServerKind.of(testInfo));
		client = redis.primaryClient();
		store = FailoverStores.store(client.factory());
	}

	@AfterAll
	static void stop() {
		if (client != null) {
			client.close();
			client = null;
		}
		if (redis != null) {
			redis.close();
			redis = null;
		}
	}

	@AfterEach
	void linkFlowsAgain() {
		redis.resumeLink();
		redis.delayLink(Duration.ZERO);
		redis.awaitInSync();
	}

	@Test
	void withThePausedLinkNoStateChangeIsReportedSuccessfulUntilTheReplicaHasIt() {
		String program = FailoverRequests.newProgram();
		LeaseRecord held = acquired(FailoverRequests.identity(program, "held"));
		LeaseRecord released = acquired(FailoverRequests.identity(program, "released"));
		LeaseRecord revoked = acquired(FailoverRequests.identity(program, "revoked"));
		assertThat(redis.waitForReplicas(1, Duration.ofSeconds(5))).as("the replica keeps up").isEqualTo(1);

		redis.pauseLink();
		SoftAssertions soft = new SoftAssertions();
		Duration deadline = Duration.ofMillis(1500);
		AcquireRequest acquire = FailoverRequests.acquire(FailoverRequests.identity(program, "new"), "alice", TTL,
				deadline);
		LeaseResult acquireResult = store.acquire(acquire);
		soft.assertThat(acquireResult.code()).as("acquire while the replica does not acknowledge (%s)",
				PromotionScenario.describe(acquireResult)).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		var renew = FailoverRequests.renew(held, deadline);
		LeaseResult renewResult = store.renew(renew);
		soft.assertThat(renewResult.code()).as("renew while the replica does not acknowledge (%s)",
				PromotionScenario.describe(renewResult)).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		LeaseResult commit = store.authorizeCommit(FailoverRequests.commit(held, deadline));
		soft.assertThat(commit.code())
			.as("the lease's first commit authorization (it raises the high-water mark) while the replica does not "
					+ "acknowledge (%s)", PromotionScenario.describe(commit))
			.isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		ReleaseRequest release = FailoverRequests.release(released, deadline);
		LeaseResult releaseResult = store.release(release);
		soft.assertThat(releaseResult.code()).as("release while the replica does not acknowledge (%s)",
				PromotionScenario.describe(releaseResult)).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		AdminRequest revoke = FailoverRequests.revoke(revoked, deadline);
		LeaseResult revokeResult = store.revoke(revoke);
		soft.assertThat(revokeResult.code()).as("revoke while the replica does not acknowledge (%s)",
				PromotionScenario.describe(revokeResult)).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(redis.link().heldBytes()).as("the changes are on the primary, held on their way to the replica")
			.isPositive();

		redis.resumeLink();
		redis.awaitInSync();
		soft.assertThat(resolve(acquire)).as("resolve(acquire) once the replica has it")
			.isEqualTo(ResultCode.LEASE_ACQUIRED);
		soft.assertThat(resolve(renew)).as("resolve(renew) once the replica has it").isEqualTo(ResultCode.LEASE_RENEWED);
		soft.assertThat(resolve(release)).as("resolve(release) once the replica has it")
			.isEqualTo(ResultCode.LEASE_RELEASED);
		soft.assertThat(resolve(revoke)).as("resolve(revoke) once the replica has it")
			.isEqualTo(ResultCode.LEASE_REVOKED);
		LockIdentity later = FailoverRequests.identity(program, "later");
		LeaseResult afterwards = store.acquire(FailoverRequests.acquire(later, "bob", TTL, Duration.ofSeconds(5)));
		soft.assertThat(afterwards.code()).as("an acquire once the link flows again")
			.isEqualTo(ResultCode.LEASE_ACQUIRED);
		soft.assertThat(onReplica(later)).as("the lease of a reported acquire is on the replica").isTrue();
		soft.assertAll();
	}

	@Test
	void whatIsReportedSuccessfulIsAlreadyOnTheReplica() {
		String program = FailoverRequests.newProgram();
		LockIdentity acquiredTarget = FailoverRequests.identity(program, "acquired");
		LockIdentity releasedTarget = FailoverRequests.identity(program, "released");
		LockIdentity revokedTarget = FailoverRequests.identity(program, "revoked");
		LeaseRecord toRelease = acquired(releasedTarget);
		LeaseRecord toRevoke = acquired(revokedTarget);
		assertThat(redis.waitForReplicas(1, Duration.ofSeconds(5))).as("the replica keeps up").isEqualTo(1);
		assertThat(onReplica(releasedTarget) && onReplica(revokedTarget)).as("the replica has both leases").isTrue();

		redis.delayLink(Duration.ofMillis(300));
		SoftAssertions soft = new SoftAssertions();
		Duration deadline = Duration.ofSeconds(3);
		LeaseResult acquire = store.acquire(FailoverRequests.acquire(acquiredTarget, "alice", TTL, deadline));
		boolean acquiredOnReplica = onReplica(acquiredTarget);
		soft.assertThat(acquire.code()).as("acquire over a link delayed by 300 ms each way")
			.isEqualTo(ResultCode.LEASE_ACQUIRED);
		soft.assertThat(acquiredOnReplica).as("the replica has the lease when its acquire is reported (%s)",
				PromotionScenario.describe(acquire)).isTrue();
		LeaseResult release = store.release(FailoverRequests.release(toRelease, deadline));
		boolean releasedStillOnReplica = onReplica(releasedTarget);
		soft.assertThat(release.code()).as("release over the delayed link").isEqualTo(ResultCode.LEASE_RELEASED);
		soft.assertThat(releasedStillOnReplica).as("the replica still has a lease whose release was reported (%s)",
				PromotionScenario.describe(release)).isFalse();
		LeaseResult revoke = store.revoke(FailoverRequests.revoke(toRevoke, deadline));
		boolean revokedStillOnReplica = onReplica(revokedTarget);
		soft.assertThat(revoke.code()).as("revoke over the delayed link").isEqualTo(ResultCode.LEASE_REVOKED);
		soft.assertThat(revokedStillOnReplica).as("the replica still has a lease whose revoke was reported (%s)",
				PromotionScenario.describe(revoke)).isFalse();
		soft.assertAll();
	}

	private static LeaseRecord acquired(LockIdentity identity) {
		LeaseResult result = store.acquire(FailoverRequests.acquire(identity, "owner", TTL, Duration.ofSeconds(5)));
		assertThat(result.code()).as("acquire %s with the link flowing", identity.targetId())
			.isEqualTo(ResultCode.LEASE_ACQUIRED);
		return result.lease();
	}

	/**
	 * Whether the replica holds an active record for the identity (storage v3: a non-empty field m of its identity
	 * hash), read on the replica directly.
	 */
	private static boolean onReplica(LockIdentity identity) {
		String key = RedisKeys.of(identity).identity(identity.keyDigest());
		String m = redis.on(redis.replicaPort(), (node) -> node.hget(key, "m"));
		return m != null && !m.isEmpty();
	}

	private static ResultCode resolve(MutatingRequest request) {
		return retrying(() -> store.resolve(ResolveRequest.of(request, FailoverRequests.in(Duration.ofSeconds(5)))))
			.code();
	}

	private static LeaseResult retrying(Supplier<LeaseResult> call) {
		LeaseResult result = call.get();
		for (int i = 0; i < 20 && (result.code() == ResultCode.LEASE_BACKEND_UNAVAILABLE
				|| result.code() == ResultCode.LEASE_OUTCOME_UNKNOWN); i++) {
			sleep(250);
			result = call.get();
		}
		return result;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
