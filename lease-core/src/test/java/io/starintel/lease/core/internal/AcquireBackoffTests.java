package io.starintel.lease.core.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AcquireBackoffTests {

	@Test
	void pauseGrowsUpToOneSecondAndStaysInsideTheWait() {
		for (int attempt = 0; attempt < 20; attempt++) {
			long cap = Math.min(1000, 25L << Math.min(attempt, 6));
			for (int i = 0; i < 200; i++) {
				long pause = AcquireBackoff.pauseMs(attempt, 0, 10_000);
				assertThat(pause).isBetween(Math.max(5, cap / 2), cap);
			}
		}
	}

	@Test
	void pauseNeverExceedsRetryAfterNorTheTimeLeft() {
		for (int i = 0; i < 200; i++) {
			assertThat(AcquireBackoff.pauseMs(6, 40, 10_000)).isBetween(20L, 40L);
			assertThat(AcquireBackoff.pauseMs(6, 0, 3)).isBetween(1L, 3L);
		}
	}

}
