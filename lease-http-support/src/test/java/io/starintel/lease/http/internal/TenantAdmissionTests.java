package io.starintel.lease.http.internal;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The per-tenant token bucket and in-flight bound, on a fake nano clock.
 */
class TenantAdmissionTests {

	private final AtomicLong now = new AtomicLong();

	@Test
	void whenBucketIsEmptyThenRejectedWithRetryHintUntilRefilled() {
		TenantAdmission control = new TenantAdmission(10, 2, 2, this.now::get, "test.admission");
		control.admit("t").close();
		control.admit("t").close();
		TenantAdmission.Permit rejected = control.admit("t");
		assertThat(rejected.admitted()).isFalse();
		assertThat(rejected.retryAfterMs()).isEqualTo(500);
		assertThat(control.admit("other").admitted()).as("tenants are independent").isTrue();
		this.now.addAndGet(500_000_000L);
		assertThat(control.admit("t").admitted()).isTrue();
	}

	@Test
	void whenInFlightLimitIsReachedThenRejectedUntilAPermitCloses() {
		TenantAdmission control = new TenantAdmission(1, 1000, 1000, this.now::get, "test.admission");
		TenantAdmission.Permit first = control.admit("t");
		assertThat(first.admitted()).isTrue();
		TenantAdmission.Permit second = control.admit("t");
		assertThat(second.admitted()).isFalse();
		assertThat(second.retryAfterMs()).isPositive();
		first.close();
		first.close();
		try (TenantAdmission.Permit third = control.admit("t")) {
			assertThat(third.admitted()).isTrue();
		}
	}

	@Test
	void limitsMustBePositiveAndTheFailureNamesTheProperty() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new TenantAdmission(0, 1, 1, "starintel.lease.worker-http.admission"))
			.withMessageContaining("starintel.lease.worker-http.admission");
	}

}
