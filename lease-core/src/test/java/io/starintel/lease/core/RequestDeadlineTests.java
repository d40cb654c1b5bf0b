package io.starintel.lease.core;

import java.time.Instant;
import java.util.List;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A request's deadline is a real epoch-millisecond time: one outside 1970..9999 (at the extremes of {@link Instant}
 * it has no millisecond value at all) is refused when the request is built, with the typed
 * {@link InvalidLeaseRequestException} naming {@code deadline_at}, never a raw arithmetic failure later in a store.
 */
class RequestDeadlineTests {

	private static final LockIdentity IDENTITY = LockIdentity.of("tenant-a", "program-a", "starintel-target", "t1",
			"usernamegen", "default", null);

	private static final LeaseHandle HANDLE = new LeaseHandle(IDENTITY, "lease_1", "prn_a", "instance-1", 7L);

	private static final List<Function<Instant, Object>> REQUESTS = List.of(
			(deadline) -> new RenewRequest(HANDLE, "request_1", deadline),
			(deadline) -> new ReleaseRequest(HANDLE, "request_1", deadline),
			(deadline) -> new CommitRequest(HANDLE, "corr_1", deadline),
			(deadline) -> InspectRequest.byIdentity(IDENTITY, "corr_1", deadline));

	@Test
	void aDeadlineWithoutAnEpochMillisecondValueIsInvalidWhenTheRequestIsBuilt() {
		for (Function<Instant, Object> request : REQUESTS) {
			for (Instant deadline : List.of(Instant.MIN, Instant.MAX, Instant.ofEpochMilli(-1),
					Instant.parse("+10000-01-01T00:00:00Z"))) {
				assertThatExceptionOfType(InvalidLeaseRequestException.class)
					.isThrownBy(() -> request.apply(deadline))
					.satisfies((ex) -> assertThat(ex.field()).isEqualTo("deadline_at"));
			}
			assertThatCode(() -> request.apply(Instant.now().plusSeconds(5))).doesNotThrowAnyException();
			// a deadline already past is a deadline: the store answers it deadline_exceeded at backend time
			assertThatCode(() -> request.apply(Instant.now().minusSeconds(5))).doesNotThrowAnyException();
		}
	}

}
