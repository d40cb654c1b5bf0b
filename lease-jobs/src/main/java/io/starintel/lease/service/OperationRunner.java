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
import io.starintel.lease.core.internal.FatalErrors;

/**
 * Runs one store call of {@link LeaseService} in one {@link LeaseObservationDocumentation#LEASE_OPERATION}
 * observation whose {@code code} is set before it stops (its meter handler makes it the timer
 * {@value LeaseService#OPERATION_TIMER}: the one meter of that name) and whose error is what the store threw, and
 * maps what the store throws, an {@link Error} included, to a typed result (the one place of that rule: the type of
 * the throwable is logged, never its message); only a {@link FatalErrors fatal} error is rethrown, after the stop.
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
		return run(new LeaseOperationContext(operation, programId), whenThrown, call, LEASE_RESULTS);
	}

	/** An observed list call; a store that throws answers {@code lease_backend_unavailable}. */
	LeasePage page(@Nullable String programId, Supplier<LeasePage> call) {
		return run(new LeaseOperationContext("list", programId), ResultCode.LEASE_BACKEND_UNAVAILABLE, call, PAGES);
	}

	/**
	 * An observed attached-key call; a store that throws answers {@code lease_outcome_unknown} for a put or delete
	 * (it may have committed), {@code lease_backend_unavailable} for a read.
	 */
	AttachmentResult attachment(String operation, @Nullable String programId, Supplier<AttachmentResult> call) {
		ResultCode whenThrown = operation.equals("attach_put") || operation.equals("attach_delete")
				? ResultCode.LEASE_OUTCOME_UNKNOWN : ResultCode.LEASE_BACKEND_UNAVAILABLE;
		return run(new LeaseOperationContext(operation, programId), whenThrown, call, ATTACHMENTS);
	}

	/**
	 * The one observed store call: the observation always stops, with the answer's code set, and with the store's
	 * throwable as its error (the meter handler's {@code error} tag: its simple class name). A store that throws is
	 * answered: {@link InvalidLeaseRequestException} as {@code invalid_lease_request}, any other exception or
	 * {@link Error} as {@code whenThrown}; only a {@link FatalErrors fatal} error (a {@link VirtualMachineError}) is
	 * rethrown, after the stop.
	 */
	private <T> T run(LeaseOperationContext context, ResultCode whenThrown, Supplier<T> call, Answers<T> answers) {
		Observation observation = start(context);
		ResultCode code = whenThrown;
		try (Observation.Scope scope = observation.openScope()) {
			T answer = call.get();
			if (answer == null) {
				answer = answers.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE);
			}
			code = answers.code(answer);
			return answer;
		}
		catch (InvalidLeaseRequestException ex) {
			observation.error(ex);
			code = ResultCode.INVALID_LEASE_REQUEST;
			return answers.invalid(ex);
		}
		catch (RuntimeException | Error ex) {
			observation.error(ex);
			FatalErrors.rethrowIfFatal(ex);
			// contract: no raw backend error crosses the boundary; the type only, never the message (may hold keys)
			logger.warn("Lease store threw on {} ({}); answering {}", context.operation(), ex.getClass().getName(),
					whenThrown.wireName());
			return answers.failure(whenThrown);
		}
		finally {
			// contract of the observation: the code is part of it when it stops (its timer is tagged by it)
			context.code(code);
			observation.stop();
		}
	}

	/** How one kind of answer is built and read. */
	private interface Answers<T> {

		/** The failure answered with {@code code} (reason {@code backend_unreachable}). */
		T failure(ResultCode code);

		/** The answer to a request the store refused as invalid. */
		T invalid(InvalidLeaseRequestException ex);

		ResultCode code(T answer);

	}

	private static final Answers<LeaseResult> LEASE_RESULTS = new Answers<>() {

		@Override
		public LeaseResult failure(ResultCode code) {
			return LeaseResult.failure(code, Reason.BACKEND_UNREACHABLE, null);
		}

		@Override
		public LeaseResult invalid(InvalidLeaseRequestException ex) {
			return LeaseResult.invalid(ex);
		}

		@Override
		public ResultCode code(LeaseResult answer) {
			return answer.code();
		}

	};

	private static final Answers<LeasePage> PAGES = new Answers<>() {

		@Override
		public LeasePage failure(ResultCode code) {
			return LeasePage.failure(code, Reason.BACKEND_UNREACHABLE, null);
		}

		@Override
		public LeasePage invalid(InvalidLeaseRequestException ex) {
			return LeasePage.failure(ResultCode.INVALID_LEASE_REQUEST, Reason.NONE, null);
		}

		@Override
		public ResultCode code(LeasePage answer) {
			return answer.code();
		}

	};

	private static final Answers<AttachmentResult> ATTACHMENTS = new Answers<>() {

		@Override
		public AttachmentResult failure(ResultCode code) {
			return AttachmentResult.failure(code, Reason.BACKEND_UNREACHABLE, null);
		}

		@Override
		public AttachmentResult invalid(InvalidLeaseRequestException ex) {
			return AttachmentResult.invalid(ex);
		}

		@Override
		public ResultCode code(AttachmentResult answer) {
			return answer.code();
		}

	};

	/** A started observation of one operation (a batch starts one per request, without a scope). */
	Observation start(LeaseOperationContext context) {
		return LeaseObservationDocumentation.LEASE_OPERATION
			.observation(this.convention, DEFAULT_CONVENTION, () -> context, this.observations)
			.start();
	}

}
