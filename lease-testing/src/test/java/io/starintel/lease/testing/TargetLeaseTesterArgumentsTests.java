package io.starintel.lease.testing;

import java.time.Duration;
import java.util.function.Predicate;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import io.starintel.lease.service.LeaseService;
import io.starintel.lease.store.memory.InMemoryLeaseStore;
import io.starintel.lease.testing.internal.LeaseObservations;
import io.starintel.lease.testing.internal.LeaseTestStore;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * Misuse of {@link TargetLeaseTester} is rejected at once with an {@link IllegalArgumentException} naming the
 * parameter: no wait (a null target is not "no job acquired a lease for target 'null'" after ten seconds), no raw
 * {@code NullPointerException}, nothing sent to the store or the service.
 */
class TargetLeaseTesterArgumentsTests {

	private final LeaseService service = mock(LeaseService.class);

	private final TargetLeaseTester tester = new TargetLeaseTester(
			new LeaseTestStore(new InMemoryLeaseStore(), null, new LeaseObservations()), this.service,
			new CapturedAuditEvents());

	@Test
	void aNullTargetIsRejectedAtOnce() {
		rejected(() -> this.tester.awaitLease((String) null), "targetId");
		rejected(() -> this.tester.awaitLease((String) null, Duration.ofSeconds(10)), "targetId");
		rejected(() -> this.tester.leases(null), "targetId");
		rejected(() -> this.tester.lastLease(null), "targetId");
	}

	@Test
	void aNullOrNegativeTimeoutIsRejectedAtOnce() {
		rejected(() -> this.tester.awaitLease("x", null), "timeout");
		rejected(() -> this.tester.awaitLease((lease) -> true, null), "timeout");
		rejected(() -> this.tester.awaitLease("x", Duration.ofSeconds(-1)), "timeout");
		rejected(() -> this.tester.awaitLease((Predicate<HeldLease>) null, Duration.ofSeconds(1)), "filter");
	}

	@Test
	void aNullLeaseIsRejectedAtOnce() {
		rejected(() -> this.tester.revoke(null), "lease");
		rejected(() -> this.tester.forceRelease(null), "lease");
		rejected(() -> this.tester.expire(null), "lease");
		rejected(() -> this.tester.expire(null, Duration.ofSeconds(1)), "lease");
		rejected(() -> this.tester.takeOver(null), "lease");
		rejected(() -> this.tester.backendUnreachable(null), "lease");
		rejected(() -> this.tester.isActive(null), "lease");
		rejected(() -> this.tester.hasJobEnded(null), "lease");
		rejected(() -> this.tester.awaitCancellation(null), "lease");
		rejected(() -> this.tester.awaitCancellation(null, Duration.ofSeconds(1)), "lease");
		rejected(() -> this.tester.awaitJobEnded(null), "lease");
		rejected(() -> this.tester.awaitJobEnded(null, Duration.ofSeconds(1)), "lease");
		verifyNoInteractions(this.service);
	}

	@Test
	void theConstructorNamesAMissingCollaborator() {
		rejected(() -> new TargetLeaseTester(null, this.service, new CapturedAuditEvents()), "store");
		rejected(() -> new TargetLeaseTester(
				new LeaseTestStore(new InMemoryLeaseStore(), null, new LeaseObservations()), null,
				new CapturedAuditEvents()), "service");
	}

	private static void rejected(ThrowingCallable call, String parameter) {
		assertThatIllegalArgumentException().isThrownBy(call).withMessageStartingWith(parameter + " must not be");
	}

}
