package io.starintel.lease.service;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * Runs one store call of {@link LeaseService} in one {@link LeaseObservationDocumentation#LEASE_OPERATION}
 * observation whose {@code code} is set before it stops (its meter handler makes it the timer
 * {@value LeaseService#OPERATION_TIMER}: the one meter of that name), and maps what the store throws to a typed
 * result (the one place of that rule: the type of the exception is logged, never its message).
 */
final class OperationRunner {

	private static final Logger logger = LoggerFactory.getLogger(LeaseService.class);

	private static final LeaseOperationObservationConvention DEFAULT_CONVENTION =
			new DefaultLeaseOperationObservationConvention();

	private final ObservationRegistry observations;

	private volatile @Nullable LeaseOperationObservationConvention convention;

	OperationRunner(ObservationRegistry observations) {
		this.observations = observations;
	}

	void convention(@Nullable LeaseOperationObservationConvention convention) {
		this.convention = convention;
	}

	/** An observed call; a store that throws answers {@code whenThrown}. */
	LeaseResult observed(String operation, @Nullable String programId, ResultCode whenThrown,
			Supplier<LeaseResult> call) {
		LeaseOperationContext context = new LeaseOperationContext(operation, programId);
		Observation observation = start(context);
		try (Observation.Scope scope = observation.openScope()) {
			LeaseResult result = typedResult(operation, call, whenThrown);
			context.code(result.code());
			return result;
		}
		finally {
			observation.stop();
		}
	}

	/** An observed list call; a store that throws answers {@code lease_backend_unavailable}. */
	LeasePage page(@Nullable String programId, Supplier<LeasePage> call) {
		LeaseOperationContext context = new LeaseOperationContext("list", programId);
		Observation observation = start(context);
		LeasePage page;
		try (Observation.Scope scope = observation.openScope()) {
			page = call.get();
			if (page == null) {
				page = LeasePage.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
			}
		}
		catch (InvalidLeaseRequestException ex) {
			page = LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
		}
		catch (RuntimeException ex) {
			logger.warn("Lease store threw on list ({}); answering lease_backend_unavailable",
					ex.getClass().getName());
			page = LeasePage.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
		}
		// contract of the observation: the code is part of it when it stops (its timer is tagged by it)
		context.code(page.code());
		observation.stop();
		return page;
	}

	/** An observed attached-key call, with typed exception mapping. */
	AttachmentResult attachment(String operation, @Nullable String programId, Supplier<AttachmentResult> call) {
		LeaseOperationContext context = new LeaseOperationContext(operation, programId);
		Observation observation = start(context);
		AttachmentResult result;
		try (Observation.Scope scope = observation.openScope()) {
			result = call.get();
			if (result == null) {
				result = AttachmentResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE,
						null);
			}
		}
		catch (InvalidLeaseRequestException ex) {
			result = AttachmentResult.invalid(ex);
		}
		catch (RuntimeException ex) {
			ResultCode code = operation.equals("attach_put") || operation.equals("attach_delete")
					? ResultCode.LEASE_OUTCOME_UNKNOWN : ResultCode.LEASE_BACKEND_UNAVAILABLE;
			logger.warn("Lease store threw on {} ({}); answering {}", operation, ex.getClass().getName(),
					code.wireName());
			result = AttachmentResult.failure(code, Reason.BACKEND_UNREACHABLE, null);
		}
		context.code(result.code());
		observation.stop();
		return result;
	}

	/** A started observation of one operation (a batch starts one per request, without a scope). */
	Observation start(LeaseOperationContext context) {
		return LeaseObservationDocumentation.LEASE_OPERATION
			.observation(this.convention, DEFAULT_CONVENTION, () -> context, this.observations)
			.start();
	}

	private LeaseResult typedResult(String operation, Supplier<LeaseResult> call, ResultCode whenThrown) {
		try {
			LeaseResult result = call.get();
			return (result != null) ? result
					: LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, null);
		}
		catch (InvalidLeaseRequestException ex) {
			return LeaseResult.invalid(ex);
		}
		catch (RuntimeException ex) {
			// contract: no raw backend error crosses the boundary; the type only, never the message (may hold keys)
			logger.warn("Lease store threw on {} ({}); answering {}", operation, ex.getClass().getName(),
					whenThrown.wireName());
			return LeaseResult.failure(whenThrown, Reason.BACKEND_UNREACHABLE, null);
		}
	}

}
