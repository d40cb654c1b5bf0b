package io.starintel.lease.admin;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-tenant token bucket and in-flight bound, on a fake nano clock.
 */
class TenantAdmissionControlTests {

	private final AtomicLong now = new AtomicLong();

	@Test
	void whenBucketIsEmptyThenRejectedWithRetryHintUntilRefilled() {
		TenantAdmissionControl control = new TenantAdmissionControl(10, 2, 2, this.now::get);
		control.admit("t").close();
		control.admit("t").close();
		TenantAdmissionControl.Admission rejected = control.admit("t");
		assertThat(rejected.admitted()).isFalse();
		assertThat(rejected.retryAfterMs()).isEqualTo(500);
		assertThat(control.admit("other").admitted()).as("tenants are independent").isTrue();
		this.now.addAndGet(500_000_000L);
		assertThat(control.admit("t").admitted()).isTrue();
	}

	@Test
	void whenInFlightLimitIsReachedThenRejectedUntilAPermitCloses() {
		TenantAdmissionControl control = new TenantAdmissionControl(1, 1000, 1000, this.now::get);
		TenantAdmissionControl.Admission first = control.admit("t");
		assertThat(first.admitted()).isTrue();
		TenantAdmissionControl.Admission second = control.admit("t");
		assertThat(second.admitted()).isFalse();
		assertThat(second.retryAfterMs()).isPositive();
		first.close();
		first.close();
		try (TenantAdmissionControl.Admission third = control.admit("t")) {
			assertThat(third.admitted()).isTrue();
		}
	}

}
