package io.starintel.lease.service;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;

/**
 * Runs one store call of {@link LeaseService}: records its timer ({@value LeaseService#OPERATION_TIMER}, tags
 * {@code operation} and {@code code}), opens an observation for the observed operations, and maps what the store
 * throws to a typed result (the one place of that rule: the type of the exception is logged, never its message).
 */
final class OperationRunner {

	private static final Logger logger = LoggerFactory.getLogger(LeaseService.class);

	private final MeterRegistry meters;

	private final ObservationRegistry observations;

	/** Timers by operation, then by result code ordinal: looked up without building a key per call. */
	private final Map<String, Timer[]> timers = new ConcurrentHashMap<>();

	OperationRunner(MeterRegistry meters, ObservationRegistry observations) {
		this.meters = meters;
		this.observations = observations;
	}

	/** A timed and observed call; a store that throws answers {@code whenThrown}. */
	LeaseResult observed(String operation, ResultCode whenThrown, Supplier<LeaseResult> call) {
		Observation observation = start(operation);
		try (Observation.Scope scope = observation.openScope()) {
			LeaseResult result = measured(operation, call, whenThrown);
			observation.lowCardinalityKeyValue("code", result.code().wireName());
			return result;
		}
		finally {
			observation.stop();
		}
	}

	/** A timed call (no observation); a store that throws answers {@code lease_backend_unavailable}. */
	LeaseResult measured(String operation, Supplier<LeaseResult> call) {
		return measured(operation, call, ResultCode.LEASE_BACKEND_UNAVAILABLE);
	}

	/** A timed and observed list call; a store that throws answers {@code lease_backend_unavailable}. */
	LeasePage page(Supplier<LeasePage> call) {
		Observation observation = start("list");
		long start = System.nanoTime();
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
		finally {
			observation.stop();
		}
		observation.lowCardinalityKeyValue("code", page.code().wireName());
		record("list", page.code(), System.nanoTime() - start);
		return page;
	}

	/** An attached-key call, timed like the lease operations, with typed exception mapping. */
	AttachmentResult attachment(String operation, Supplier<AttachmentResult> call) {
		long start = System.nanoTime();
		AttachmentResult result;
		try {
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
		record(operation, result.code(), System.nanoTime() - start);
		return result;
	}

	/** Records one call of {@code operation} that answered {@code code}. */
	void record(String operation, ResultCode code, long elapsedNanos) {
		timer(operation, code).record(elapsedNanos, TimeUnit.NANOSECONDS);
	}

	private Observation start(String operation) {
		return Observation.createNotStarted(LeaseService.OBSERVATION, this.observations)
			.lowCardinalityKeyValue("operation", operation)
			.start();
	}

	private LeaseResult measured(String operation, Supplier<LeaseResult> call, ResultCode whenThrown) {
		long start = System.nanoTime();
		LeaseResult result = typedResult(operation, call, whenThrown);
		record(operation, result.code(), System.nanoTime() - start);
		return result;
	}

	/** The cached timer of (operation, code), registered on first use. */
	private Timer timer(String operation, ResultCode code) {
		Timer[] byCode = this.timers.computeIfAbsent(operation, (key) -> new Timer[ResultCode.values().length]);
		Timer timer = byCode[code.ordinal()];
		if (timer == null) {
			timer = Timer.builder(LeaseService.OPERATION_TIMER)
				.description("Lease store operations by operation and result code")
				.tag("operation", operation)
				.tag("code", code.wireName())
				.register(this.meters); // idempotent: a racing thread gets the same meter
			byCode[code.ordinal()] = timer;
		}
		return timer;
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
