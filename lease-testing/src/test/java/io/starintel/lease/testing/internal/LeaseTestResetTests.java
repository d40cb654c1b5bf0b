package io.starintel.lease.testing.internal;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.test.context.TestContext;

import io.starintel.lease.audit.AuditEvent;
import io.starintel.lease.audit.AuditEventType;
import io.starintel.lease.audit.internal.AsyncAuditPipeline;
import io.starintel.lease.audit.internal.AuditingLeaseStore;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.testing.CapturedAuditEvents;
import io.starintel.lease.testing.HeldLease;
import io.starintel.lease.testing.TargetLeaseTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What one test leaves behind does not reach the next test of the same context: the audit events its operations
 * submitted (delivered asynchronously, after the reset), the events of its jobs still ending, the competing holders
 * its {@code takeOver} created. The application's audited facade over the in-memory store, with the asynchronous
 * audit pipeline of the auto-configuration.
 */
class LeaseTestResetTests {

	private final LeaseObservations observations = new LeaseObservations();

	private final LeaseTestStore store = new LeaseTestStore(new InMemoryLeaseStore(), null, this.observations);

	private final CapturedAuditEvents captured = new CapturedAuditEvents();

	private final AsyncAuditPipeline pipeline = new AsyncAuditPipeline(List.of(this.captured), 1000,
			Duration.ofMinutes(1), (count) -> {
			});

	private final LeaseService service = new LeaseService(
			new AuditingLeaseStore(this.store, List.of(this.captured), this.pipeline::submit, Clock.systemUTC()),
			this.store, Clock.systemUTC(), Duration.ofSeconds(5), null, null);

	private final TargetLeaseTester tester = new TargetLeaseTester(this.store, this.service, this.captured,
			this.pipeline);

	private final GenericApplicationContext context = new GenericApplicationContext();

	private final LeaseTestExecutionListener listener = new LeaseTestExecutionListener();

	LeaseTestResetTests() {
		this.context.registerBean(TargetLeaseTester.class, () -> this.tester);
		this.context.refresh();
	}

	@AfterEach
	void close() {
		this.context.close();
		this.pipeline.close();
	}

	@Test
	void theEventsATestSubmittedAreNotDeliveredIntoTheNextTest() throws Exception {
		TestContext first = testContext("first");
		this.listener.beforeTestMethod(first);
		LeaseRecord job = acquire("target-1").lease();
		// a refused acquisition: an event without a lease, submitted just before the test ends
		assertThat(acquire("target-1").code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		release(job);
		this.listener.afterTestMethod(first);
		this.listener.beforeTestMethod(testContext("second"));
		LeaseRecord next = acquire("target-2").lease();
		assertOnlyEventsOf(next);
	}

	@Test
	void theEventsOfAnEarlierTestsJobEndingAfterTheResetAreNotCaptured() throws Exception {
		TestContext first = testContext("first");
		this.listener.beforeTestMethod(first);
		LeaseRecord job = acquire("target-1").lease();
		this.listener.afterTestMethod(first);
		this.listener.beforeTestMethod(testContext("second"));
		release(job); // the first test's job, still running, ends now
		LeaseRecord next = acquire("target-2").lease();
		assertOnlyEventsOf(next);
	}

	@Test
	void theCompetingHolderATestLeftIsReleasedBeforeTheNextTest() throws Exception {
		TestContext first = testContext("first");
		this.listener.beforeTestMethod(first);
		LeaseRecord job = acquire("shared").lease();
		this.tester.takeOver(new HeldLease(job)); // not released by the test
		release(job);
		this.listener.afterTestMethod(first);
		this.listener.beforeTestMethod(testContext("second"));
		LeaseResult next = acquire("shared");
		assertThat(next.code()).as("the next test's job on the target: %s", next).isEqualTo(ResultCode.LEASE_ACQUIRED);
	}

	@Test
	void whenNoJobGotTheTargetTheMessageNamesTheCompetingHolder() throws Exception {
		this.listener.beforeTestMethod(testContext("first"));
		LeaseRecord job = acquire("shared").lease();
		this.tester.takeOver(new HeldLease(job));
		release(job);
		assertThat(acquire("shared").code()).as("the next job on the target").isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.tester.awaitLease("shared", Duration.ofMillis(100)))
			.withMessageStartingWith("No job acquired a lease for target 'shared' within PT0.1S")
			.withMessageContaining("acquisitions of that target refused: [lease_conflict]")
			.withMessageContaining("the target is held by [a competing holder from takeOver() ("
					+ TargetLeaseTester.COMPETITOR_PRINCIPAL + ", HeldLease[")
			.withMessageContaining("release it (Competitor.release())");
	}

	@Test
	void whenAnotherOwnerHoldsTheTargetTheMessageNamesIt() throws Exception {
		this.listener.beforeTestMethod(testContext("first"));
		// another instance of the application: not through this one's store
		LeaseResult other = this.store.delegate().acquire(request("shared", "prn_other-instance"));
		assertThat(other.code()).isEqualTo(ResultCode.LEASE_ACQUIRED);
		assertThat(acquire("shared").code()).isEqualTo(ResultCode.LEASE_CONFLICT);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.tester.awaitLease("shared", Duration.ofMillis(100)))
			.withMessageContaining("acquisitions of that target refused: [lease_conflict]")
			.withMessageContaining("the target is held by [another holder (prn_other-instance, HeldLease[");
	}

	/** Every captured event is of {@code lease}, the only lease of the running test (waits for its acquisition). */
	private void assertOnlyEventsOf(LeaseRecord lease) {
		assertThat(this.captured.await(AuditEventType.ACQUIRE, lease.identity().targetId())).isPresent();
		assertThat(describe(this.captured.matching((event) -> !lease.leaseId().equals(event.leaseId()))))
			.as("captured events of the earlier test").isEmpty();
	}

	private static List<String> describe(List<AuditEvent> events) {
		return events.stream().map((event) -> event.eventType().wireName() + "@" + event.targetId()).toList();
	}

	private LeaseResult acquire(String target) {
		return this.service.acquire(request(target, "prn_test"));
	}

	private static AcquireRequest request(String target, String principal) {
		LockIdentity identity = LockIdentity.of("tenant-test", "program-test", "ns", target, "scanner", "default",
				null);
		return new AcquireRequest(identity, Identifiers.generate("req"), Instant.now().plusSeconds(5),
				new LeaseOwner(principal, "client-1", "key-1", "instance-1"), 30_000, 300_000, "exec-1", "job-1",
				"trace-1", LeaseMetadata.empty());
	}

	private void release(LeaseRecord lease) {
		this.service
			.release(new ReleaseRequest(lease.handle(), Identifiers.generate("req"), Instant.now().plusSeconds(5)));
	}

	private TestContext testContext(String methodName) throws NoSuchMethodException {
		return LeaseTestExecutionListenerTests.testContext(this.context, new Object(), methodName);
	}

}
