package io.starintel.lease.fence;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.RequestCaller;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.store.LeaseStore;

/**
 * Authorizes one fenced commit: exactly one {@link LeaseStore#authorizeCommit} call (one script at backend time),
 * directly or through the lease service ({@link CommitAuthorizer}), with a fresh correlation id and a short deadline.
 *
 * <p>Contract (fenced writes): the exact lease id, owner, service instance and fencing token must be the active,
 * unexpired record at backend time, and the token must not be below the identity's durable high-water mark, which
 * the authorization raises. Work submitted after expiry is rejected as {@code lease_lost}. On {@code lease_lost}
 * the context is marked lost (cancellation). This class never throws backend exceptions: an exception from the
 * store becomes {@link FenceOutcome#BACKEND_UNAVAILABLE} (no success is assumed).
 */
public final class FenceGuard {

	/** Default bound on one authorization (the deadline handed to the store). */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	private static final Logger logger = LoggerFactory.getLogger(FenceGuard.class);

	private final CommitAuthorizer authorizer;

	private final Duration timeout;

	private final Clock clock;

	private final @Nullable RejectionListener rejections;

	/** A guard with the default timeout on the system clock. */
	public FenceGuard(LeaseStore store) {
		this(store, DEFAULT_TIMEOUT, Clock.systemUTC());
	}

	/** A guard whose authorizations carry a deadline of {@code timeout} from the caller's clock. */
	public FenceGuard(LeaseStore store, Duration timeout, Clock clock) {
		this(Objects.requireNonNull(store, "store")::authorizeCommit, timeout, clock);
	}

	/**
	 * A guard over an authorizer (the auto-configuration passes the lease service's {@code authorizeCommit}), whose
	 * authorizations carry a deadline of {@code timeout} from the caller's clock.
	 */
	public FenceGuard(CommitAuthorizer authorizer, Duration timeout, Clock clock) {
		this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive");
		}
		this.timeout = timeout;
		this.clock = clock;
		this.rejections = null;
	}

	private FenceGuard(FenceGuard guard, RejectionListener rejections) {
		this.authorizer = guard.authorizer;
		this.timeout = guard.timeout;
		this.clock = guard.clock;
		this.rejections = rejections;
	}

	/**
	 * This guard, also telling {@code listener} of every commit it refuses ({@link FenceOutcome#LEASE_LOST} or
	 * {@link FenceOutcome#NO_LEASE_CONTEXT}): an enforcement point's own guard, counting its rejections.
	 */
	public FenceGuard withRejectionListener(RejectionListener listener) {
		return new FenceGuard(this, Objects.requireNonNull(listener, "listener"));
	}

	/** The bound on one authorization. */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Authorizes a commit of the leased execution bound to the current thread; without one the answer is
	 * {@link FenceOutcome#NO_LEASE_CONTEXT}.
	 */
	public FenceDecision authorizeCurrent() {
		LeaseContext context = LeaseContext.currentOrNull();
		if (context == null) {
			return rejected(new FenceDecision(FenceOutcome.NO_LEASE_CONTEXT, Reason.NONE,
					Identifiers.generate("corr"), this.clock.instant(), null, null));
		}
		return authorize(context);
	}

	/** Authorizes one commit of the given leased execution (one store call). */
	public FenceDecision authorize(LeaseContext context) {
		String correlationId = Identifiers.generate("corr");
		Instant deadlineAt = this.clock.instant().plus(this.timeout);
		LeaseResult result;
		try {
			result = this.authorizer.authorizeCommit(new CommitRequest(context.handle(), correlationId, deadlineAt,
					RequestCaller.holderOf(context.lease())));
		}
		catch (RuntimeException ex) {
			// never let a backend exception (or its message) cross the fence boundary
			logger.warn("Fence authorization failed without a safe answer, correlation_id={}, error={}",
					correlationId, ex.getClass().getSimpleName());
			return new FenceDecision(FenceOutcome.BACKEND_UNAVAILABLE, Reason.BACKEND_UNREACHABLE, correlationId,
					deadlineAt, null, null);
		}
		FenceOutcome outcome = FenceOutcome.of(result.code());
		if (outcome == FenceOutcome.ACCEPTED) {
			Instant acceptedAt = result.decidedAt();
			if (acceptedAt == null) {
				// a success without a backend decision time cannot be stamped: never assume it
				return new FenceDecision(FenceOutcome.OUTCOME_UNKNOWN, Reason.NONE, correlationId, deadlineAt, result,
						null);
			}
			FenceStamp stamp = new FenceStamp(context.identity().keyDigest(), context.fencingToken(),
					context.leaseId(), context.executionId(), context.traceId(), acceptedAt);
			return new FenceDecision(outcome, Reason.NONE, correlationId, deadlineAt, result, stamp);
		}
		if (result.code() == ResultCode.LEASE_LOST) {
			context.markLost(result.reason());
		}
		FenceDecision decision = new FenceDecision(outcome, result.reason(), correlationId, deadlineAt, result, null);
		return (outcome == FenceOutcome.LEASE_LOST) ? rejected(decision) : decision;
	}

	private FenceDecision rejected(FenceDecision decision) {
		RejectionListener listener = this.rejections;
		if (listener != null) {
			try {
				listener.rejected(decision);
			}
			catch (RuntimeException ex) {
				// a listener failure never turns a rejection into an acceptance
				logger.debug("Fence rejection listener failed: {}", ex.getClass().getSimpleName());
			}
		}
		return decision;
	}

	/** Told of each commit a guard refuses (see {@link #withRejectionListener}); must not block. */
	@FunctionalInterface
	public interface RejectionListener {

		/** One refused commit ({@link FenceOutcome#LEASE_LOST} or {@link FenceOutcome#NO_LEASE_CONTEXT}). */
		void rejected(FenceDecision decision);

	}

}
