package io.starintel.lease.it.fence;

import io.starintel.lease.core.Reason;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.fence.FencedWriteResult;
import io.starintel.lease.fence.checkpoint.Checkpoint;
import io.starintel.lease.fence.checkpoint.CheckpointState;
import io.starintel.lease.fence.checkpoint.RedisCheckpointStore;
import io.starintel.lease.job.LeaseContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checkpoint enforcement point against the real Redis: lease validation and checkpoint write are one script, so
 * an expired or superseded holder can never overwrite progress or a terminal state.
 */
class CheckpointFenceTests {

	static FenceFixture fixture;

	static RedisCheckpointStore checkpoints;

	@BeforeAll
	static void setUp() {
		fixture = new FenceFixture();
		checkpoints = new RedisCheckpointStore(fixture.redis);
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@Test
	void formerHolderCheckpointingAfterExpiryIsLeaseLost() {
		LeaseContext a = fixture.acquire(fixture.identity("cp-expiry"), "alice", 300);
		assertThat(checkpoints.write(a, CheckpointState.IN_PROGRESS, "10%").isAccepted()).isTrue();
		fixture.awaitExpired(a);
		FencedWriteResult late = checkpoints.write(a, CheckpointState.COMPLETED, "100%");
		assertThat(late.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(late.reason()).isIn(Reason.EXPIRED, Reason.STALE_LEASE);
		assertThat(a.isLost()).isTrue();
		Checkpoint stored = checkpoints.read(a.identity()).orElseThrow();
		assertThat(stored.state()).isEqualTo(CheckpointState.IN_PROGRESS);
		assertThat(stored.progress()).isEqualTo("10%");
		assertThat(stored.fencingToken()).isEqualTo(a.fencingToken());
	}

	@Test
	void formerHolderCheckpointingAfterNewAcquisitionIsRejected() {
		LeaseContext a = fixture.acquire(fixture.identity("cp-successor"), "alice", 300);
		assertThat(checkpoints.write(a, CheckpointState.IN_PROGRESS, "A 50%").isAccepted()).isTrue();
		fixture.awaitExpired(a);
		LeaseContext b = fixture.acquire(fixture.identity("cp-successor"), "bob", 5_000);
		FencedWriteResult done = checkpoints.write(b, CheckpointState.COMPLETED, "B done");
		assertThat(done.isAccepted()).isTrue();
		assertThat(done.stamp().acceptedAt()).isNotNull();
		FencedWriteResult late = checkpoints.write(a, CheckpointState.FAILED, "A late");
		assertThat(late.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(late.reason()).isEqualTo(Reason.TOKEN_BELOW_HIGH_WATER_MARK);
		Checkpoint stored = checkpoints.read(b.identity()).orElseThrow();
		assertThat(stored.state()).isEqualTo(CheckpointState.COMPLETED);
		assertThat(stored.progress()).isEqualTo("B done");
		assertThat(stored.fencingToken()).isEqualTo(b.fencingToken());
		assertThat(stored.leaseId()).isEqualTo(b.leaseId());
	}

	@Test
	void checkpointWithoutContextIsRefused() {
		assertThat(checkpoints.writeCurrent(CheckpointState.IN_PROGRESS, "x").outcome())
			.isEqualTo(FenceOutcome.NO_LEASE_CONTEXT);
		LeaseContext b = fixture.acquire(fixture.identity("cp-current"), "bob", 5_000);
		try (LeaseContext.Scope scope = LeaseContext.bind(b)) {
			assertThat(checkpoints.writeCurrent(CheckpointState.RESCHEDULED, "next run").isAccepted()).isTrue();
		}
		assertThat(checkpoints.read(b.identity()).orElseThrow().state()).isEqualTo(CheckpointState.RESCHEDULED);
	}

}
