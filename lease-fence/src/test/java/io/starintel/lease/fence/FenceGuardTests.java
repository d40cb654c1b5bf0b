package io.starintel.lease.fence;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.store.LeaseStore;
import io.starintel.lease.store.OffsetClock;
import io.starintel.lease.store.memory.InMemoryLeaseStore;

import static org.assertj.core.api.Assertions.assertThat;

class FenceGuardTests {

	private final AtomicLong offset = new AtomicLong();

	private final InMemoryLeaseStore store = new InMemoryLeaseStore(new OffsetClock(this.offset),
			LeasePolicy.defaults().withTtlBounds(Duration.ofMillis(100), Duration.ofMinutes(10)));

	private final FenceGuard guard = new FenceGuard(this.store, FenceGuard.DEFAULT_TIMEOUT, new OffsetClock(this.offset));

	private final LockIdentity identity = LockIdentity.of("tenant-a", "p-" + UUID.randomUUID().toString().substring(0, 8),
			"starintel-target", "t1", "usernamegen", "default", null);

	@Test
	void whenLeaseIsActiveThenAuthorizedWithStampOfBackendTime() {
		LeaseContext context = acquire("alice");
		FenceDecision decision = this.guard.authorize(context);
		assertThat(decision.isAuthorized()).isTrue();
		assertThat(decision.stamp().fencingToken()).isEqualTo(context.fencingToken());
		assertThat(decision.stamp().lockKeyDigest()).isEqualTo(this.identity.keyDigest()).doesNotContain(":");
		assertThat(decision.stamp().leaseId()).isEqualTo(context.leaseId());
		assertThat(decision.correlationId()).startsWith("corr_");
		assertThat(decision.acceptedAt()).isPresent();
	}

	@Test
	void whenLeaseExpiredThenLeaseLostAndContextMarkedLost() {
		LeaseContext context = acquire("alice");
		this.offset.addAndGet(60_000);
		FenceDecision decision = this.guard.authorize(context);
		assertThat(decision.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(decision.stamp()).isNull();
		assertThat(context.isLost()).isTrue();
	}

	@Test
	void whenSuccessorAcquiredThenFormerHolderIsLeaseLost() {
		LeaseContext a = acquire("alice");
		this.store.release(new ReleaseRequest(a.handle(), Identifiers.generate("request"), Instant.now().plusSeconds(5)));
		LeaseContext b = acquire("bob");
		assertThat(this.guard.authorize(b).isAuthorized()).isTrue();
		FenceDecision stale = this.guard.authorize(a);
		assertThat(stale.outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(stale.toWriteResult().isAccepted()).isFalse();
	}

	@Test
	void whenNoContextBoundThenNoLeaseContext() {
		assertThat(this.guard.authorizeCurrent().outcome()).isEqualTo(FenceOutcome.NO_LEASE_CONTEXT);
		LeaseContext context = acquire("alice");
		try (LeaseContext.Scope scope = LeaseContext.bind(context)) {
			assertThat(this.guard.authorizeCurrent().isAuthorized()).isTrue();
		}
	}

	@Test
	void whenStoreThrowsThenBackendUnavailableWithoutException() {
		LeaseStore failing = (LeaseStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { LeaseStore.class }, (proxy, method, args) -> {
					throw new IllegalStateException("redis://secret@host down");
				});
		FenceDecision decision = new FenceGuard(failing).authorize(acquire("alice"));
		assertThat(decision.outcome()).isEqualTo(FenceOutcome.BACKEND_UNAVAILABLE);
		FencedWriteRejectedException ex = new FencedWriteRejectedException(decision.toWriteResult());
		assertThat(ex.getMessage()).contains("lease_backend_unavailable").doesNotContain("secret")
			.doesNotContain(this.identity.lockKey());
	}

	@Test
	void whenStoreSaysDeadlineExceededThenTypedDeadline() {
		LeaseStore late = (LeaseStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { LeaseStore.class },
				(proxy, method, args) -> LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, Instant.now()));
		assertThat(new FenceGuard(late).authorize(acquire("alice")).outcome())
			.isEqualTo(FenceOutcome.DEADLINE_EXCEEDED);
	}

	/**
	 * A job's commit authorizations, granted and refused, are audited with the job's own credential id and its
	 * trace, execution and job ids.
	 */
	@Test
	void whenAuditedThenCommitEventsNameTheJobsCredentialAndIds() {
		List<AuditEvent> events = new ArrayList<>();
		FenceGuard audited = new FenceGuard(new AuditingLeaseStore(this.store, List.of(events::add),
				new OffsetClock(this.offset), false), FenceGuard.DEFAULT_TIMEOUT, new OffsetClock(this.offset));
		LeaseContext context = acquire("alice");
		assertThat(audited.authorize(context).isAuthorized()).isTrue();
		this.offset.addAndGet(60_000);
		assertThat(audited.authorize(context).outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		assertThat(events).extracting(AuditEvent::eventType)
			.startsWith(AuditEventType.COMMIT_AUTHORIZE, AuditEventType.COMMIT_REJECTED);
		assertThat(events.subList(0, 2)).allSatisfy((event) -> {
			assertThat(event.credentialId()).isEqualTo("key_1");
			assertThat(event.traceId()).isEqualTo("trace_1");
			assertThat(event.executionId()).isEqualTo(context.executionId());
			assertThat(event.jobId()).isEqualTo("job_1");
		});
	}

	private LeaseContext acquire(String owner) {
		LeaseResult result = this.store.acquire(new AcquireRequest(this.identity, Identifiers.generate("request"),
				Instant.now().plusSeconds(30), new LeaseOwner(owner, "client_1", "key_1", "instance-" + owner), 5_000,
				300_000, Identifiers.generate("execution"), "job_1", "trace_1", LeaseMetadata.empty()));
		assertThat(result.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		LeaseRecord lease = result.lease();
		return new LeaseContext(lease);
	}

}
