package io.starintel.lease.store.memory;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.MutatingRequest;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;

/**
 * Where each operation of the reference model takes effect: one lock (the model is linearizable within one JVM),
 * backend time at millisecond precision, the deadline checks, and the idempotency replay of mutations (successes
 * only, kept for the policy's retention in an {@link IdempotencyLedger}).
 */
final class LinearizationPoint {

	/** A lease decision at backend time. */
	interface Decision {

		LeaseResult decide(Instant now);

	}

	/** An attached-key decision of the exact holder at backend time. */
	interface AttachmentDecision {

		AttachmentResult decide(LeaseRecord holder, Instant now);

	}

	private final Object lock = new Object();

	private final Clock clock;

	private final LeasePolicy policy;

	private final LeaseTable table;

	private final IdempotencyLedger<LeaseResult> results = new IdempotencyLedger<>();

	private final IdempotencyLedger<AttachmentResult> attachmentResults = new IdempotencyLedger<>();

	LinearizationPoint(Clock clock, LeasePolicy policy, LeaseTable table) {
		this.clock = clock;
		this.policy = policy;
		this.table = table;
	}

	/** Runs a step under the lock at backend time, without deadline (test hooks, and list/sweep after their own). */
	<T> T locked(Function<Instant, T> step) {
		synchronized (this.lock) {
			return step.apply(backendNow());
		}
	}

	/**
	 * Runs one operation that is not idempotency-keyed (it may still write, as {@code authorizeCommit} raises the
	 * high-water mark) after the backend-time deadline check.
	 */
	LeaseResult decideOnce(Instant deadlineAt, Decision decision) {
		synchronized (this.lock) {
			Instant now = backendNow();
			try {
				this.policy.checkDeadline(deadlineAt, now);
			}
			catch (InvalidLeaseRequestException ex) {
				return LeaseResult.invalid(ex);
			}
			if (now.isAfter(deadlineAt)) {
				return LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			return decision.decide(now);
		}
	}

	/** Runs one mutating operation with deadline and idempotency handling. */
	LeaseResult mutate(MutatingRequest request, Decision decision) {
		synchronized (this.lock) {
			Instant now = backendNow();
			try {
				this.policy.checkDeadline(request.deadlineAt(), now);
			}
			catch (InvalidLeaseRequestException ex) {
				return LeaseResult.invalid(ex);
			}
			if (now.isAfter(request.deadlineAt())) {
				return LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			String idemKey = idempotencyKey(request);
			IdempotencyLedger.Entry<LeaseResult> stored = this.results.find(idemKey, now);
			if (stored != null) {
				return stored.digest().equals(request.digest())
						? stored.result().asReplay(this.table.stateOf(stored.result(), now))
						: LeaseResult.failure(ResultCode.IDEMPOTENCY_CONFLICT, Reason.NONE, now);
			}
			LeaseResult result;
			try {
				result = decision.decide(now);
			}
			catch (InvalidLeaseRequestException ex) {
				return LeaseResult.invalid(ex);
			}
			if (result.isSuccess()) {
				this.results.remember(idemKey, request.digest(), result, now.plus(this.policy.idempotencyRetention()));
			}
			return result;
		}
	}

	/**
	 * The idempotency key of a mutation, as the Redis store derives it: an acquire's is program-wide (no lock key), so
	 * the same principal's request id reused on another identity of the program meets the first acquire's result,
	 * whose request digest differs: {@code idempotency_conflict} (docs/worker-api.md); every other operation's names
	 * its lease's lock key.
	 */
	static String idempotencyKey(MutatingRequest request) {
		return idempotencyKey(request.operation(), request.identity(), request.principalId(), request.requestId());
	}

	private static String idempotencyKey(Operation operation, LockIdentity identity, String principalId,
			String requestId) {
		String where = (operation == Operation.ACQUIRE) ? "program\n" + identity.scope().hashTag()
				: identity.lockKey();
		return IdempotencyLedger.key(operation, where, principalId, requestId);
	}

	/** The replay of a retained mutation result, or {@code lease_not_found}. */
	LeaseResult resolve(ResolveRequest request) {
		return decideOnce(request.deadlineAt(), now -> {
			IdempotencyLedger.Entry<LeaseResult> stored = this.results.find(idempotencyKey(request.operation(),
					request.identity(), request.principalId(), request.requestId()), now);
			LeaseRecord lease = (stored != null) ? stored.result().lease() : null;
			if (stored == null || (lease != null && !lease.identity().equals(request.identity()))) {
				// none, or an acquire's result of another identity (its key is program-wide): none of this one's
				return LeaseResult.failure(ResultCode.LEASE_NOT_FOUND, Reason.NONE, now);
			}
			return stored.result().asReplay(this.table.stateOf(stored.result(), now));
		});
	}

	/** An attached-key mutation of the exact holder with deadline and idempotency handling. */
	AttachmentResult mutateAttached(LeaseHandle handle, Operation operation, String requestId, String digest,
			Instant deadlineAt, AttachmentDecision decision) {
		synchronized (this.lock) {
			Instant now = backendNow();
			try {
				this.policy.checkDeadline(deadlineAt, now);
			}
			catch (InvalidLeaseRequestException ex) {
				return AttachmentResult.invalid(ex);
			}
			if (now.isAfter(deadlineAt)) {
				return AttachmentResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			String idemKey = IdempotencyLedger.key(operation, handle.identity().lockKey(), handle.ownerPrincipalId(),
					requestId);
			IdempotencyLedger.Entry<AttachmentResult> stored = this.attachmentResults.find(idemKey, now);
			if (stored != null) {
				return stored.digest().equals(digest) ? stored.result().asReplay()
						: AttachmentResult.failure(ResultCode.IDEMPOTENCY_CONFLICT, Reason.NONE, now);
			}
			@Nullable LeaseRecord holder = this.table.held(handle, now);
			if (holder == null) {
				return AttachmentResult.failure(ResultCode.LEASE_LOST, Reason.STALE_LEASE, now);
			}
			AttachmentResult result;
			try {
				result = decision.decide(holder, now);
			}
			catch (InvalidLeaseRequestException ex) {
				return AttachmentResult.invalid(ex);
			}
			if (result.isSuccess()) {
				this.attachmentResults.remember(idemKey, digest, result, now.plus(this.policy.idempotencyRetention()));
			}
			return result;
		}
	}

	/** An attached-key read after the backend-time deadline check. */
	AttachmentResult readAttached(Instant deadlineAt, Function<Instant, AttachmentResult> decision) {
		synchronized (this.lock) {
			Instant now = backendNow();
			try {
				this.policy.checkDeadline(deadlineAt, now);
			}
			catch (InvalidLeaseRequestException ex) {
				return AttachmentResult.invalid(ex);
			}
			if (now.isAfter(deadlineAt)) {
				return AttachmentResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, now);
			}
			return decision.apply(now);
		}
	}

	/** Backend time at the contract's millisecond precision. */
	private Instant backendNow() {
		return this.clock.instant().truncatedTo(ChronoUnit.MILLIS);
	}

}
