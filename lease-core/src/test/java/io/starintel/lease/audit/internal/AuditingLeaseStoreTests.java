package io.starintel.lease.audit.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.starintel.lease.store.DelegatingStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import org.junit.jupiter.api.Test;
import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.AuditSink;
import io.starintel.lease.audit.PrincipalClass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The decorator emits one event per call and outcome, never leaks the lock key, and does not report an admin
 * success whose durable audit failed.
 */
class AuditingLeaseStoreTests {

	private final List<AuditEvent> events = new ArrayList<>();

	private final String program = "p-" + UUID.randomUUID().toString().substring(0, 8);

	private final LockIdentity identity = LockIdentity.of("tenant-a", this.program, "ns", "Target-1", "actor",
			"default", null);

	private AuditingLeaseStore store(List<AuditSink> sinks, boolean delegateWritesAdminAudit) {
		return new AuditingLeaseStore(new InMemoryLeaseStore(), sinks, java.time.Clock.systemUTC(),
				delegateWritesAdminAudit);
	}

	private AcquireRequest acquire() {
		return new AcquireRequest(this.identity, Identifiers.generate("req"), Instant.now().plusSeconds(10),
				new LeaseOwner("worker-1", "client-1", "key-1", "instance-1"), 30_000, 300_000, "exec-1", "job-1",
				"trace-1", LeaseMetadata.empty());
	}

	private AdminRequest admin(Operation operation, LeaseRecord lease) {
		return new AdminRequest(operation, this.identity, Identifiers.generate("req"), Instant.now().plusSeconds(10),
				lease.leaseId(), lease.fencingToken(), "admin-1", "cred-admin", "incident INC-1");
	}

	@Test
	void whenAcquireConflictsThenOneEventPerOutcome() {
		AuditingLeaseStore store = store(List.of(this.events::add), false);
		LeaseResult first = store.acquire(acquire());
		LeaseResult second = store.acquire(acquire());
		assertThat(second.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(this.events).extracting(AuditEvent::resultCode)
			.containsExactly(ResultCode.LEASE_ACQUIRED, ResultCode.LEASE_CONFLICT);
		AuditEvent accepted = this.events.get(0);
		assertThat(accepted.eventType()).isEqualTo(AuditEventType.ACQUIRE);
		assertThat(accepted.leaseId()).isEqualTo(first.lease().leaseId());
		assertThat(accepted.fencingToken()).isEqualTo(first.lease().fencingToken());
		assertThat(accepted.requestedTtlMs()).isEqualTo(30_000L);
		assertThat(accepted.effectiveTtlMs()).isEqualTo(30_000L);
		assertThat(accepted.credentialId()).isEqualTo("key-1");
		assertThat(this.events.get(1).leaseId()).as("a conflict never names the other lease").isNull();
		for (AuditEvent event : this.events) {
			assertThat(event.toFields().values()).noneMatch(v -> v.contains(LockIdentity.KEY_PREFIX));
		}
	}

	@Test
	void whenRenewIsStaleOrDeadlinePassedThenAudited() {
		AuditingLeaseStore store = store(List.of(this.events::add), false);
		LeaseRecord lease = store.acquire(acquire()).lease();
		store.revoke(admin(Operation.REVOKE, lease));
		store.renew(new RenewRequest(lease.handle(), Identifiers.generate("req"), Instant.now().plusSeconds(5)));
		store.inspect(InspectRequest.byIdentity(this.identity, "corr-1", Instant.now().minusSeconds(1)));
		store.list(new ListRequest(new ListFilter.ByProgram(this.identity.scope()), null, 10, "corr-2",
				Instant.now().plusSeconds(5)));
		assertThat(this.events).extracting(e -> e.eventType().wireName() + ":" + e.resultCode().wireName())
			.containsExactly("target_lease_acquire:lease_acquired", "target_lease_revoke:lease_revoked",
					"target_lease_renew:lease_lost", "target_lease_inspect:deadline_exceeded",
					"target_lease_list:lease_listed");
		AuditEvent revoke = this.events.get(1);
		assertThat(revoke.principalClass()).isEqualTo(PrincipalClass.ADMINISTRATOR);
		assertThat(revoke.reason()).isEqualTo("incident INC-1");
		assertThat(revoke.previousState()).isEqualTo("active");
		assertThat(revoke.resultingState()).isEqualTo("revoked");
		assertThat(this.events.get(3).deadlineClass()).isEqualTo("past");
		assertThat(this.events.get(3).correlationId()).isEqualTo("corr-1");
	}

	/**
	 * A user's store that throws an {@link Error} (an {@link AssertionError}) is audited as one that throws an
	 * exception: the event has the code the service answers, and the error is rethrown for the service's mapping.
	 */
	@Test
	void whenTheDelegateThrowsAnErrorThenTheEventHasTheCodeTheServiceAnswers() {
		io.starintel.lease.store.LeaseStore faulty = new DelegatingStore() {

			@Override
			public LeaseResult acquire(AcquireRequest request) {
				throw new AssertionError("store bug");
			}

			@Override
			public LeasePage list(ListRequest request) {
				throw new AssertionError("store bug");
			}

		};
		AuditingLeaseStore store = new AuditingLeaseStore(faulty, List.of(this.events::add), Clock.systemUTC(), false);
		assertThatThrownBy(() -> store.acquire(acquire()))
			.isInstanceOf(AssertionError.class);
		assertThatThrownBy(() -> store.list(new ListRequest(
				new ListFilter.ByProgram(this.identity.scope()), null, 10, "corr-1", Instant.now().plusSeconds(5))))
			.isInstanceOf(AssertionError.class);
		assertThat(this.events).extracting(e -> e.eventType().wireName() + ":" + e.resultCode().wireName())
			.containsExactly("target_lease_acquire:lease_outcome_unknown", "target_lease_list:lease_backend_unavailable");
	}

	@Test
	void whenDurableSinkFailsThenRevokeDoesNotReportSuccess() {
		AuditSink failing = new AuditSink() {

			@Override
			public void record(AuditEvent event) {
				throw new AuditWriteException("down");
			}

			@Override
			public boolean isDurable() {
				return true;
			}

		};
		AuditingLeaseStore store = store(List.of(failing, this.events::add), false);
		LeaseRecord lease = store.acquire(acquire()).lease();
		AdminRequest revoke = admin(Operation.REVOKE, lease);
		assertThat(store.revoke(revoke).code()).isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
		assertThat(this.events).hasSize(2);
	}

	/**
	 * A synchronous write waits at most until the deadline of the request it is about: each sink is handed the time
	 * left to it ({@link AuditSink#recordWithin}), and a durable sink that could not confirm a revoke in that time
	 * makes it {@code lease_outcome_unknown}. Before, the durable sink got no bound but its own (the Redis stream sink
	 * waited its command timeout after the request's deadline).
	 */
	@Test
	void whenWrittenSynchronouslyThenEachSinkWaitsAtMostTheTimeLeftToTheRequestsDeadline() {
		Instant now = Instant.parse("2026-12-07T10:00:00Z");
		List<String> waits = new ArrayList<>();
		AuditSink durable = new AuditSink() {

			@Override
			public void record(AuditEvent event) {
				waits.add(event.eventType().wireName() + ":unbounded");
			}

			@Override
			public void recordWithin(AuditEvent event, Duration within) {
				waits.add(event.eventType().wireName() + ":" + within);
				if (event.eventType() == AuditEventType.REVOKE) {
					throw new AuditWriteException("not confirmed in time");
				}
			}

			@Override
			public boolean isDurable() {
				return true;
			}

		};
		Clock clock = Clock.fixed(now, ZoneOffset.UTC);
		AuditingLeaseStore store = new AuditingLeaseStore(new InMemoryLeaseStore(clock, LeasePolicy.defaults()),
				List.of(durable), this.events::add, clock);
		LeaseRecord lease = store.acquire(new AcquireRequest(this.identity, Identifiers.generate("req"),
				now.plusSeconds(10), new LeaseOwner("worker-1", "client-1", "key-1", "instance-1"), 30_000, 300_000,
				"exec-1", "job-1", "trace-1", LeaseMetadata.empty())).lease();
		AuditContext admin = new AuditContext("corr-admin", PrincipalClass.ADMINISTRATOR, "admin-1", "cred-admin");
		admin.run(() -> store.list(new ListRequest(new ListFilter.ByProgram(this.identity.scope()), null, 10,
				"corr-admin", now.plusMillis(1500))));
		LeaseResult revoked = store.revoke(new AdminRequest(Operation.REVOKE, this.identity,
				Identifiers.generate("req"), now.plusSeconds(3), lease.leaseId(), lease.fencingToken(), "admin-1",
				"cred-admin", "incident INC-2"));
		assertThat(waits).as("the acquire went through the non-blocking path; list and revoke were written at once")
			.containsExactly("target_lease_list:PT1.5S", "target_lease_revoke:PT3S");
		assertThat(revoked.code()).as("a revoke whose durable audit was not confirmed by its deadline")
			.isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
	}

	/**
	 * An application's durable sink that implements only {@link AuditSink#record} (no bound of its own) and blocks
	 * (its backend silent): a revoke still answers by its deadline, {@code lease_outcome_unknown} (its durable audit
	 * was not confirmed), and once every thread of the bounded writes is held the next revoke is refused the same way
	 * at once. Before, the request waited on the sink for as long as it blocked.
	 */
	@Test
	void aDurableSinkWithoutABoundOfItsOwnHoldsARevokeNoLongerThanItsDeadline() throws Exception {
		BlockedAuditSink blocked = new BlockedAuditSink();
		AuditSink durable = new AuditSink() {

			@Override
			public void record(AuditEvent event) {
				blocked.record(event);
			}

			@Override
			public boolean isDurable() {
				return true;
			}

		};
		AuditingLeaseStore store = store(List.of(durable, this.events::add), false);
		try {
			for (int i = 0; i <= BoundedSinkWrite.THREADS; i++) {
				LockIdentity target = LockIdentity.of("tenant-a", this.program, "ns", "Target-" + i, "actor",
						"default", null);
				// the acquire's event is written synchronously too (no pipeline here): bounded by its deadline
				AcquireRequest acquire = new AcquireRequest(target, Identifiers.generate("req"),
						Instant.now().plusMillis(500), new LeaseOwner("worker-1", "client-1", "key-1", "instance-1"),
						30_000, 300_000, "exec-1", "job-1", "trace-1", LeaseMetadata.empty());
				LeaseRecord lease = CompletableFuture.supplyAsync(() -> store.acquire(acquire))
					.get(20, TimeUnit.SECONDS)
					.lease();
				AdminRequest revoke = new AdminRequest(Operation.REVOKE, target, Identifiers.generate("req"),
						Instant.now().plusMillis(200), lease.leaseId(), lease.fencingToken(), "admin-1", "cred-admin",
						"incident INC-3");
				LeaseResult revoked = CompletableFuture.supplyAsync(() -> store.revoke(revoke))
					.get(20, TimeUnit.SECONDS);
				assertThat(revoked.code()).as("revoke %d, its durable audit stuck", i)
					.isEqualTo(ResultCode.LEASE_OUTCOME_UNKNOWN);
			}
		}
		finally {
			blocked.release();
		}
	}

	/**
	 * An admin request whose deadline has passed (refused as {@code deadline_exceeded}) is still audited durably:
	 * its event goes through the non-blocking path, after the answer. Before, it was handed to each durable sink with
	 * no time left, failed there (a WARN naming the sink as if the backend had failed) and never reached the stream
	 * (an outside probe's list and inspect with a past {@code deadline_at}).
	 */
	@Test
	void anEventOfARequestWhoseDeadlineHasPassedStillReachesEverySinkThroughTheNonBlockingPath() {
		Instant now = Instant.parse("2026-12-07T10:00:00Z");
		List<String> synchronous = new ArrayList<>();
		AuditSink durable = new AuditSink() {

			@Override
			public void record(AuditEvent event) {
				synchronous.add(event.eventType().wireName());
			}

			@Override
			public void recordWithin(AuditEvent event, Duration within) {
				if (within.isNegative() || within.isZero()) {
					throw new AuditWriteException("no time left");
				}
				record(event);
			}

			@Override
			public boolean isDurable() {
				return true;
			}

		};
		Clock clock = Clock.fixed(now, ZoneOffset.UTC);
		AuditingLeaseStore store = new AuditingLeaseStore(new InMemoryLeaseStore(clock, LeasePolicy.defaults()),
				List.of(durable), this.events::add, clock);
		AuditContext admin = new AuditContext("corr-admin", PrincipalClass.ADMINISTRATOR, "admin-1", "cred-admin");
		admin.run(() -> store.list(new ListRequest(new ListFilter.ByProgram(this.identity.scope()), null, 10,
				"corr-admin", now.minusSeconds(10))));
		LeaseResult revoked = admin.run(() -> store.revoke(new AdminRequest(Operation.REVOKE, this.identity,
				Identifiers.generate("req"), now.minusSeconds(1), "lease_x", 5, "admin-1", "cred-admin", "incident INC-3")));
		assertThat(revoked.code()).isEqualTo(ResultCode.DEADLINE_EXCEEDED);
		assertThat(synchronous).as("written synchronously with no time left").isEmpty();
		assertThat(this.events).as("through the non-blocking path")
			.extracting((event) -> event.eventType().wireName() + ":" + event.resultCode().wireName())
			.containsExactly("target_lease_list:deadline_exceeded", "target_lease_revoke:deadline_exceeded");
	}

	@Test
	void whenDelegateWritesAdminAuditThenDurableSinksSkipAdminEvents() {
		List<AuditEvent> durable = new ArrayList<>();
		AuditSink durableSink = new AuditSink() {

			@Override
			public void record(AuditEvent event) {
				durable.add(event);
			}

			@Override
			public boolean isDurable() {
				return true;
			}

		};
		AuditingLeaseStore store = store(List.of(durableSink, this.events::add), true);
		LeaseRecord lease = store.acquire(acquire()).lease();
		assertThat(store.forceRelease(admin(Operation.FORCE_RELEASE, lease)).code())
			.isEqualTo(ResultCode.LEASE_RELEASED);
		assertThat(durable).extracting(AuditEvent::eventType).containsExactly(AuditEventType.ACQUIRE);
		assertThat(this.events).extracting(AuditEvent::eventType)
			.containsExactly(AuditEventType.ACQUIRE, AuditEventType.FORCE_RELEASE);
	}

	@Test
	void whenBuildingThenDeadlineClassesAreBounded() {
		assertThat(AuditEventBuilder.deadlineClass(java.time.Duration.ofMillis(-1))).isEqualTo("past");
		assertThat(AuditEventBuilder.deadlineClass(java.time.Duration.ofMillis(10))).isEqualTo("lt_1s");
		assertThat(AuditEventBuilder.deadlineClass(java.time.Duration.ofSeconds(5))).isEqualTo("lt_10s");
		assertThat(AuditEventBuilder.deadlineClass(java.time.Duration.ofSeconds(30))).isEqualTo("lt_60s");
		assertThat(AuditEventBuilder.deadlineClass(java.time.Duration.ofMinutes(5))).isEqualTo("ge_60s");
	}

	/** Latency and deadline class are computed without Duration objects, with the same truncation and bounds. */
	@Test
	void whenBuildingThenLatencyAndDeadlineClassAreThoseOfDurationBetween() {
		Instant start = Instant.parse("2026-01-01T00:00:00.999999999Z");
		long[] offsets = { -2_000_000_000L, -1, 0, 1, 999_999, 1_000_000, 1_000_001, 1_500_000_000L, 999_999_999L,
				1_000_000_000L, 9_999_999_999L, 10_000_000_000L, 59_999_999_999L, 60_000_000_000L, 86_400_000_000_000L };
		for (long offset : offsets) {
			Instant end = start.plusNanos(offset);
			java.time.Duration between = java.time.Duration.between(start, end);
			AuditEvent event = new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED).time(end, start)
				.deadline(end, start)
				.build();
			assertThat(event.latencyMs()).as("latency of %d ns", offset).isEqualTo(Math.max(0, between.toMillis()));
			assertThat(event.deadlineClass()).as("deadline class of %d ns", offset)
				.isEqualTo(AuditEventBuilder.deadlineClass(between));
		}
		AuditEvent far = new AuditEventBuilder(AuditEventType.RENEW, ResultCode.LEASE_RENEWED)
			.deadline(Instant.MAX, Instant.MIN)
			.time(Instant.MIN, Instant.MAX)
			.build();
		assertThat(far.deadlineClass()).isEqualTo("ge_60s");
		assertThat(far.latencyMs()).isZero();
	}

	/** The identity's scope and names are copied as they were (tenant and program included). */
	@Test
	void whenBuildingFromAnIdentityThenEveryScopeFieldIsCopied() {
		AuditEvent event = new AuditEventBuilder(AuditEventType.ACQUIRE, ResultCode.LEASE_ACQUIRED)
			.identity(this.identity)
			.build();
		assertThat(event.tenantId()).isEqualTo("tenant-a");
		assertThat(event.programId()).isEqualTo(this.program);
		assertThat(event.scope()).isEqualTo(this.identity.scope());
		assertThat(event.targetNamespace()).isEqualTo(this.identity.targetNamespace());
		assertThat(event.targetId()).isEqualTo(this.identity.targetId());
		assertThat(event.actorName()).isEqualTo(this.identity.actorName());
		assertThat(event.workflowName()).isEqualTo(this.identity.workflowName());
		assertThat(event.operationClass()).isEqualTo(this.identity.operationClass());
	}


	/**
	 * A force-release or revoke runs with its decision bound ({@link AdminDecision}): a store that writes the
	 * decision's audit entry itself (the Redis store's script) reads the same decision id, correlation id and start as
	 * the synchronous event of that decision has, so its durable entry can be matched to the answer the operator got.
	 */
	@Test
	void whenAdministeredThenTheDelegateSeesTheDecisionOfTheEvent() {
		List<AdminDecision> seen = new ArrayList<>();
		io.starintel.lease.store.LeaseStore recording = new DelegatingStore() {
			@Override
			public LeaseResult revoke(AdminRequest request) {
				seen.add(AdminDecision.current());
				return this.delegate.revoke(request);
			}
		};
		AuditingLeaseStore store = new AuditingLeaseStore(recording, List.of(this.events::add),
				java.time.Clock.systemUTC(), true);
		LeaseRecord lease = store.acquire(acquire()).lease();
		this.events.clear();
		LeaseResult revoked = new AuditContext("corr-admin", PrincipalClass.ADMINISTRATOR, "admin-1", "cred-admin")
			.run(() -> store.revoke(admin(Operation.REVOKE, lease)));
		assertThat(revoked.code()).isEqualTo(ResultCode.LEASE_REVOKED);
		assertThat(AdminDecision.current()).as("unbound after the call").isNull();
		assertThat(seen).singleElement().isNotNull();
		AdminDecision decision = seen.get(0);
		assertThat(this.events).singleElement().satisfies((event) -> {
			assertThat(event.decisionId()).isEqualTo(decision.decisionId()).matches("dec_[0-9A-Z]{26}");
			assertThat(event.correlationId()).isEqualTo("corr-admin").isEqualTo(decision.correlationId());
			assertThat(event.latencyMs()).as("backend time minus the decision's start, as the script computes it")
				.isEqualTo(Math.max(0, revoked.decidedAt().toEpochMilli() - decision.startedAtMillis()));
		});
	}

	/** A bounded-wait acquire is one request: one event with its final outcome, however many attempts it took. */
	@Test
	void whenAcquireWaitsThenOneEventForTheRequest() {
		java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
		InMemoryLeaseStore memory = new InMemoryLeaseStore();
		io.starintel.lease.store.LeaseStore counting = new DelegatingStore() {
			@Override
			public LeaseResult acquire(AcquireRequest request) {
				attempts.incrementAndGet();
				return memory.acquire(request);
			}
		};
		AuditingLeaseStore store = new AuditingLeaseStore(counting, List.of(this.events::add),
				java.time.Clock.systemUTC(), false);
		assertThat(store.acquire(acquire()).code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		this.events.clear();
		LeaseResult waited = store.acquireWaiting(acquire(), java.time.Duration.ofMillis(300));
		assertThat(waited.code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThat(attempts.get()).as("the wait retried").isGreaterThan(2);
		assertThat(this.events).extracting(e -> e.eventType().wireName() + ":" + e.resultCode().wireName())
			.containsExactly("target_lease_acquire:lease_conflict");
	}

	/**
	 * Resolve is audited as resolve; every commit authorization by its outcome, whether a job's guard asked (no audit
	 * context) or an HTTP caller (a bound audit context).
	 */
	@Test
	void whenResolvedOrCommitAuthorizedThenTheirOwnEventTypes() {
		AuditingLeaseStore store = store(List.of(this.events::add), false);
		AcquireRequest request = acquire();
		LeaseRecord lease = store.acquire(request).lease();
		this.events.clear();
		store.resolve(io.starintel.lease.core.ResolveRequest.of(request, Instant.now().plusSeconds(5)));
		io.starintel.lease.core.CommitRequest commit = new io.starintel.lease.core.CommitRequest(lease.handle(),
				"corr-commit", Instant.now().plusSeconds(5));
		store.authorizeCommit(commit);
		new AuditContext("corr-http", PrincipalClass.WORKER, "worker-1", "key-1")
			.run(() -> store.authorizeCommit(commit));
		store.revoke(admin(Operation.REVOKE, lease));
		store.authorizeCommit(commit);
		assertThat(this.events).extracting(e -> e.eventType().wireName() + ":" + e.resultCode().wireName())
			.containsExactly("target_lease_resolve:lease_acquired",
					"target_lease_commit_authorize:lease_commit_authorized",
					"target_lease_commit_authorize:lease_commit_authorized", "target_lease_revoke:lease_revoked",
					"target_lease_commit_rejected:lease_lost");
		assertThat(this.events.get(1).correlationId()).isEqualTo("corr-commit");
		assertThat(this.events.get(2).correlationId()).isEqualTo("corr-commit");
	}


	/**
	 * Renew (one and batched), authorize-commit and release events name the acting caller: its credential id (a second
	 * credential of the owner principal may act; the event says which one did) and its trace, execution and job ids,
	 * for every outcome, also when the store answers without the lease record. Principal, service instance, lease id
	 * and token are the handle's.
	 */
	@Test
	void whenTheHolderActsThenItsEventsNameTheActingCredentialAndIds() {
		AuditingLeaseStore store = store(List.of(this.events::add), false);
		LeaseRecord lease = store.acquire(acquire()).lease();
		this.events.clear();
		RequestCaller second = new RequestCaller("key-2", "trace-2", "exec-2", "job-2");
		Instant deadline = Instant.now().plusSeconds(5);
		store.renew(new RenewRequest(lease.handle(), Identifiers.generate("req"), deadline, 60_000L, second));
		store.renewAll(List.of(new RenewRequest(lease.handle(), Identifiers.generate("req"), deadline)
			.withCaller(second)));
		store.authorizeCommit(new CommitRequest(lease.handle(), "corr-granted", deadline, second));
		store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("req"), deadline, second));
		store.renew(new RenewRequest(lease.handle(), Identifiers.generate("req"), deadline).withCaller(second));
		store.authorizeCommit(new CommitRequest(lease.handle(), "corr-refused", deadline).withCaller(second));
		assertThat(this.events).extracting(e -> e.eventType().wireName() + ":" + e.resultCode().wireName())
			.containsExactly("target_lease_renew:lease_renewed", "target_lease_renew:lease_renewed",
					"target_lease_commit_authorize:lease_commit_authorized", "target_lease_release:lease_released",
					"target_lease_renew:lease_lost", "target_lease_commit_rejected:lease_lost");
		assertThat(this.events).allSatisfy((event) -> {
			assertThat(event.credentialId()).isEqualTo("key-2");
			assertThat(event.traceId()).isEqualTo("trace-2");
			assertThat(event.executionId()).isEqualTo("exec-2");
			assertThat(event.jobId()).isEqualTo("job-2");
			assertThat(event.principalId()).isEqualTo("worker-1");
			assertThat(event.serviceInstanceId()).isEqualTo("instance-1");
			assertThat(event.leaseId()).isEqualTo(lease.leaseId());
		});
	}

	/**
	 * A request that does not name its caller: no credential id is guessed (it may not be the holder's), and trace,
	 * execution and job ids are the lease's when the store answers with the record.
	 */
	@Test
	void whenTheCallerIsNotNamedThenTheLeasesIdsAndNoCredential() {
		AuditingLeaseStore store = store(List.of(this.events::add), false);
		LeaseRecord lease = store.acquire(acquire()).lease();
		this.events.clear();
		Instant deadline = Instant.now().plusSeconds(5);
		store.renew(new RenewRequest(lease.handle(), Identifiers.generate("req"), deadline));
		store.release(new ReleaseRequest(lease.handle(), Identifiers.generate("req"), deadline));
		assertThat(this.events).extracting(e -> e.eventType().wireName() + ":" + e.credentialId() + ":" + e.traceId()
				+ ":" + e.executionId() + ":" + e.jobId())
			.containsExactly("target_lease_renew:null:trace-1:exec-1:job-1",
					"target_lease_release:null:trace-1:exec-1:job-1");
	}

	/** Inspect and resolve over HTTP name the caller's credential id and the service instance its request named. */
	@Test
	void whenAnHttpCallerReadsThenItsEventsNameItsCredentialAndServiceInstance() {
		AuditingLeaseStore store = store(List.of(this.events::add), false);
		AcquireRequest request = acquire();
		store.acquire(request);
		this.events.clear();
		AuditContext caller = new AuditContext("corr-http", PrincipalClass.WORKER, "worker-1", "key-2", "instance-2");
		caller.run(() -> store.inspect(InspectRequest.byIdentity(this.identity, "corr-http",
				Instant.now().plusSeconds(5))));
		caller.run(() -> store
			.resolve(io.starintel.lease.core.ResolveRequest.of(request, Instant.now().plusSeconds(5))));
		assertThat(this.events).extracting(e -> e.eventType().wireName() + ":" + e.resultCode().wireName())
			.containsExactly("target_lease_inspect:lease_inspected", "target_lease_resolve:lease_acquired");
		assertThat(this.events).allSatisfy((event) -> {
			assertThat(event.principalId()).isEqualTo("worker-1");
			assertThat(event.credentialId()).isEqualTo("key-2");
			assertThat(event.serviceInstanceId()).isEqualTo("instance-2");
		});
	}

}
