package io.starintel.lease.job.internal;

import java.time.Instant;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.AcquireBackoff;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseOwner;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.service.LeaseService;

/**
 * Acquires the lease of one leased call, once or within the method's bounded wait.
 *
 * <p>Contract: acquisition is non-blocking unless a wait is requested; a requested wait is capped by
 * {@code starintel.lease.request.maximum-wait} and retried with a jittered backoff no longer than the store's
 * {@code retry_after_ms}; every attempt of one call carries the same execution, job and trace ids and a fresh
 * request id; an outcome-unknown answer is resolved once by that request id (contract: resolve by request_id before
 * more work). An attempt and its resolve share one deadline ({@code starintel.lease.request.timeout}): the resolve
 * gets what the acquire left, and is not sent when nothing is left, so a backend that does not answer costs a call
 * one request timeout, not two. Both run with the interrupt flag cleared ({@link Uninterrupted}); an interrupted
 * caller does not wait out a conflict ({@code waitFor}): its backoff ends at once with the conflict answer.
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
		AcquireRequest.Builder request = AcquireRequest.builder(identity, owner)
			.ttl(plan.ttl)
			.maximumLifetime(plan.maxLifetime)
			.execution(Identifiers.generate("execution"), Identifiers.generate("job"), Identifiers.generate("trace"));
		for (int attempt = 0;; attempt++) {
			LeaseResult result = attempt(request);
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

	private LeaseResult attempt(AcquireRequest.Builder builder) {
		Instant deadline = this.service.deadline();
		AcquireRequest request;
		try {
			request = builder.build(this.service.newId(), deadline);
		}
		catch (InvalidLeaseRequestException ex) {
			return LeaseResult.invalid(ex);
		}
		LeaseResult result = Uninterrupted.call(() -> this.service.acquire(request));
		if (result.code() != ResultCode.LEASE_OUTCOME_UNKNOWN || this.service.hasPassed(deadline)) {
			// answered; or unknown with nothing left of the deadline, which a resolve sent now could only miss
			return result;
		}
		LeaseResult resolved = Uninterrupted.call(() -> this.service.resolve(ResolveRequest.of(request, deadline)));
		return isAnswer(resolved.code()) ? resolved : result;
	}

	/** Whether a resolve's code is the committed answer of the acquire (not a resolve that found nothing or failed). */
	private static boolean isAnswer(ResultCode code) {
		return code != ResultCode.LEASE_NOT_FOUND && code != ResultCode.LEASE_OUTCOME_UNKNOWN
				&& code != ResultCode.LEASE_BACKEND_UNAVAILABLE && code != ResultCode.DEADLINE_EXCEEDED;
	}

}
