package io.starintel.lease.job.internal;


import io.starintel.lease.core.internal.AcquireBackoff;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseMetadata;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

/**
 * Acquires the lease of one leased call, once or within the method's bounded wait.
 *
 * <p>Contract: acquisition is non-blocking unless a wait is requested; a requested wait is capped by
 * {@code starintel.lease.maximum-wait} and retried with a jittered backoff no longer than the store's
 * {@code retry_after_ms}; every attempt of one call carries the same execution, job and trace ids.
 */
final class LeaseAcquirer {

	private final LeaseService service;

	private final JobSettings settings;

	LeaseAcquirer(LeaseService service, JobSettings settings) {
		this.service = service;
		this.settings = settings;
	}

	/** The last answer: {@code lease_acquired}, or the conflict/failure once the wait (if any) is used up. */
	LeaseResult acquire(LockIdentity identity, TargetLeasePlan plan, LeaseOwner owner) {
		long waitMs = Math.min(plan.waitFor.toMillis(), this.settings.maximumWait().toMillis());
		long giveUpAt = System.nanoTime() + waitMs * 1_000_000;
		String executionId = Identifiers.generate("execution");
		String jobId = Identifiers.generate("job");
		String traceId = Identifiers.generate("trace");
		for (int attempt = 0;; attempt++) {
			LeaseResult result = this.service.acquire(identity, owner, plan.ttl, plan.maxLifetime, executionId, jobId,
					traceId, LeaseMetadata.empty());
			long remainingMs = (giveUpAt - System.nanoTime()) / 1_000_000;
			if (result.code() != ResultCode.LEASE_CONFLICT || remainingMs <= 0) {
				return result;
			}
			long pause = AcquireBackoff.pauseMs(attempt, result.retryAfterMs(), remainingMs);
			try {
				Thread.sleep(pause); // bounded, jittered backoff of the requested wait (contract: no unbounded waiting)
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return result;
			}
		}
	}

}
