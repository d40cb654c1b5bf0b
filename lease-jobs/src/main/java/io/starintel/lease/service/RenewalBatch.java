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
import io.starintel.lease.core.internal.LateRenewal;
import io.starintel.lease.store.LeaseStore;

/**
 * One batched renewal ({@link LeaseService#renewAll}): the store's {@code renewAll}, each lease answered as a single
 * renew would be: a store that throws (or answers the wrong number of results) leaves every outcome unknown, and a
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
		List<LeaseResult> results;
		try {
			results = store.renewAll(requests);
		}
		catch (RuntimeException ex) {
			logger.warn("Lease store threw on renew_batch ({}); answering lease_outcome_unknown",
					ex.getClass().getName());
			results = null;
		}
		Instant now = clock.instant();
		List<LeaseResult> out = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			LeaseResult result = (results != null && results.size() == requests.size()) ? results.get(i) : null;
			if (result == null) {
				// the batch may have reached the backend: as for a single renew, the outcome is unknown
				result = LeaseResult.failure(LeaseService.MUTATION_THREW, Reason.BACKEND_UNREACHABLE, null);
			}
			else {
				result = LateRenewal.answer(result, requests.get(i), now);
			}
			out.add(result);
		}
		for (int i = 0; i < out.size(); i++) {
			contexts.get(i).code(out.get(i).code());
			observations.get(i).stop();
		}
		return out;
	}

}
