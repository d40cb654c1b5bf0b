package io.starintel.lease.service;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.Observation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.internal.FatalErrors;
import io.starintel.lease.core.internal.LateRenewal;
import io.starintel.lease.store.LeaseStore;

/**
 * One batched renewal ({@link LeaseService#renewAll}): the store's {@code renewAll}, each lease answered as a single
 * renew would be: a store that throws (an {@link Error} too, but a {@link FatalErrors fatal} one, rethrown once every
 * observation stopped) or answers the wrong number of results leaves every outcome unknown, and a
 * success received after the request's deadline is {@code lease_outcome_unknown}. Each lease is one
 * {@code renew} observation lasting the batch's call.
 */
final class RenewalBatch {

	private static final Logger logger = LoggerFactory.getLogger(LeaseService.class);

	private RenewalBatch() {
	}

	static List<LeaseResult> renew(LeaseStore store, List<RenewRequest> requests, Clock clock,
			OperationRunner runner) {
		// one observation per renewal (the operation is "renew" whether batched or not), each as long as the batch
		List<LeaseOperationContext> contexts = new ArrayList<>(requests.size());
		List<Observation> observations = new ArrayList<>(requests.size());
		for (RenewRequest request : requests) {
			LeaseOperationContext context = new LeaseOperationContext("renew", request.identity().programId());
			contexts.add(context);
			observations.add(runner.start(context));
		}
		List<LeaseResult> out = new ArrayList<>(requests.size());
		Throwable thrown = null;
		try {
			List<LeaseResult> results = store.renewAll(requests);
			Instant now = clock.instant();
			for (int i = 0; i < requests.size(); i++) {
				LeaseResult result = (results != null && results.size() == requests.size()) ? results.get(i) : null;
				// the batch may have reached the backend: as for a single renew, a missing answer is outcome unknown
				out.add((result != null) ? LateRenewal.answer(result, requests.get(i), now) : outcomeUnknown());
			}
		}
		catch (RuntimeException | Error ex) {
			thrown = ex;
			out.clear();
			requests.forEach((request) -> out.add(outcomeUnknown()));
			FatalErrors.rethrowIfFatal(ex);
			logger.warn("Lease store threw on renew_batch ({}); answering lease_outcome_unknown",
					ex.getClass().getName());
		}
		finally {
			// every observation stops, a fatal error's too (rethrown above, after this)
			for (int i = 0; i < observations.size(); i++) {
				contexts.get(i).code((i < out.size()) ? out.get(i).code() : LeaseService.MUTATION_THREW);
				if (thrown != null) {
					observations.get(i).error(thrown);
				}
				observations.get(i).stop();
			}
		}
		return out;
	}

	private static LeaseResult outcomeUnknown() {
		return LeaseResult.failure(LeaseService.MUTATION_THREW, Reason.BACKEND_UNREACHABLE, null);
	}

}
