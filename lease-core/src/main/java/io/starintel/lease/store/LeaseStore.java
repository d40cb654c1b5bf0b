package io.starintel.lease.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.starintel.lease.core.internal.AcquireBackoff;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActivePrograms;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.AttachmentResult;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.InspectRequest;
import io.starintel.lease.core.LeasePage;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.ListRequest;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.ResolveRequest;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;

/**
 * The lease-store SPI: one method per atomic backend operation, typed results in and out.
 *
 * <p>Contract: every method decides at backend time in one linearization point, checks the request's deadline at
 * backend time before any mutation ({@code deadline_exceeded}), treats an active-shaped record past
 * {@code expires_at} as expired before any decision, and returns a typed result: no backend exception,
 * {@code null} or boolean crosses this boundary. Mutating methods are idempotent by request id.
 */
public interface LeaseStore {

	/**
	 * This store, or the store it decorates, as the given type (the idiom of {@code java.sql.Wrapper#unwrap}): a
	 * decorator (auditing, observation, a test double) answers for itself and then asks its delegate. Wiring that
	 * needs a backend's own API (the Redis store's fence calls, for instance) finds it through the decorators.
	 * @param type the type wanted
	 * @return this store or the one it decorates, if it is of that type
	 */
	default <T> Optional<T> unwrap(Class<T> type) {
		return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
	}

	/** acquire-if-free: one winner, a strictly greater fencing token per acquisition, {@code lease_conflict} otherwise. */
	LeaseResult acquire(AcquireRequest request);

	/**
	 * acquire-if-free with a bounded wait (contract: "a caller MAY request bounded retry, but the service must
	 * enforce a configured maximum wait, bounded jitter/backoff, and the earlier of client and server deadlines"): a
	 * {@code lease_conflict} is retried with the same request (a conflict stores no idempotency result) after a
	 * jittered exponential backoff (25 ms doubling, at most 500 ms) while the next attempt would still start within
	 * {@code wait} and before the request deadline. The caller caps {@code wait} at the server's maximum wait. This is
	 * one request: decorators report it once, with its final outcome (the audited store emits one event, not one per
	 * attempt). An interrupt ends the wait with the last result.
	 */
	default LeaseResult acquireWaiting(AcquireRequest request, Duration wait) {
		long giveUpAt = System.nanoTime() + Math.max(0, Math.min(wait.toMillis(),
				request.deadlineAt().toEpochMilli() - System.currentTimeMillis())) * 1_000_000;
		LeaseResult result = acquire(request);
		for (int attempt = 0; result.code() == ResultCode.LEASE_CONFLICT; attempt++) {
			long remainingMs = (giveUpAt - System.nanoTime()) / 1_000_000;
			if (remainingMs <= 0) {
				return result;
			}
			try {
				// bounded, jittered backoff inside the bounded wait (never an unbounded wait)
				Thread.sleep(AcquireBackoff.pauseMs(attempt, result.retryAfterMs(), remainingMs));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return result;
			}
			result = acquire(request);
		}
		return result;
	}

	/** renew-if-owner: exact handle match, never past maximum lifetime; {@code lease_lost} otherwise. */
	LeaseResult renew(RenewRequest request);

	/** The most leases one {@link #renewAll} call sends to a backend at once (callers may pass more). */
	int MAX_RENEW_BATCH = 256;

	/**
	 * Renews several leases: one typed result per request, in request order, each with the meaning of
	 * {@link #renew} (its own deadline, its own idempotency key, {@code lease_lost} per lost lease). Stores that can
	 * renew many leases in one backend step (the Redis store: the leases of one program per call, at most
	 * {@link #MAX_RENEW_BATCH}) override this; the default renews them one by one.
	 */
	default List<LeaseResult> renewAll(List<RenewRequest> requests) {
		List<LeaseResult> results = new ArrayList<>(requests.size());
		for (RenewRequest request : requests) {
			results.add(renew(request));
		}
		return results;
	}

	/** release-if-owner: compare-and-delete with terminal evidence; {@code lease_lost} for a stale handle. */
	LeaseResult release(ReleaseRequest request);

	/** Inspect the active lease of an identity or lease id; {@code lease_not_found} when none is active. */
	LeaseResult inspect(InspectRequest request);

	/** List active leases with a canonical filter, stable order and an opaque cursor. */
	LeasePage list(ListRequest request);

	/** Privileged force-release of the observed active lease (operational terminal state). */
	LeaseResult forceRelease(AdminRequest request);

	/** Privileged revoke of the observed active lease (security terminal state). */
	LeaseResult revoke(AdminRequest request);

	/** Authorize a fenced commit: the handle is the active, unexpired lease and its token is not below the high-water mark. */
	LeaseResult authorizeCommit(CommitRequest request);

	/** Return the committed result of an earlier mutating request, or {@code lease_not_found} if none was committed. */
	LeaseResult resolve(ResolveRequest request);

	/**
	 * put-with-lease (docs/attachments.md): stores a key attached to the exact, active lease of the request's handle,
	 * in the lease's program. {@code lease_lost} when that lease is not active at backend time; {@code lease_conflict}
	 * ({@code attached_to_another_lease}) when the name is attached to another active lease; {@code lease_rate_limited}
	 * ({@code attached_key_limit_reached}) beyond the policy's keys per lease; {@code invalid_lease_request} for a
	 * value over the policy's bound. Every ending transition of the lease (release, force-release, revoke, expiry)
	 * deletes all its attached keys in the same atomic step. Stores without attached keys answer
	 * {@code lease_backend_unavailable} (the default).
	 */
	default AttachmentResult putAttached(AttachPutRequest request) {
		return unsupportedAttachments();
	}

	/** Reads an attached key of the program: visible only while its lease is active at backend time. */
	default AttachmentResult getAttached(AttachGetRequest request) {
		return unsupportedAttachments();
	}

	/** Deletes a key attached to the exact, active lease of the request's handle. */
	default AttachmentResult deleteAttached(AttachDeleteRequest request) {
		return unsupportedAttachments();
	}

	/** The names of every key attached to an active lease, read at one backend instant (never a partial set). */
	default AttachmentResult listAttached(AttachListRequest request) {
		return unsupportedAttachments();
	}

	private static AttachmentResult unsupportedAttachments() {
		return new AttachmentResult(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.NONE, null, null, null,
				List.of(), false, null, "this store does not support attached keys");
	}

	/**
	 * Ends, as {@code expired}, at most {@link SweepRequest#batchLimit()} leases of the program whose
	 * {@code expires_at} has passed at backend time, in one atomic step, and reports them; leases another operation
	 * found expired and ended first (any call on that identity: acquire, renew, release, inspect, list) are reported by the next sweep
	 * instead, within the same limit. Each due entry is re-checked against the stored record (same lease, still
	 * active, still expired), so any number of sweepers may run at once: every expired lease is reported by exactly
	 * one call, a renewed lease is left alone.
	 * The default answers {@link SweepResult.Status#NOT_SUPPORTED}: expired leases still end when an operation next
	 * touches them (contract: "active record becomes unusable even if physical deletion is delayed").
	 */
	default SweepResult sweepExpired(SweepRequest request) {
		return SweepResult.failure(SweepResult.Status.NOT_SUPPORTED, null);
	}

	/**
	 * The programs in which leases may be active or due, most recently active first, at most {@code limit}: what the
	 * expiry sweeper sweeps besides its configured programs (programs used only over the worker API, for instance).
	 * The default answers {@link ActivePrograms.Status#NOT_SUPPORTED}.
	 * @param limit the most programs to return (at least 1)
	 * @param deadlineAt the call's deadline
	 */
	default ActivePrograms activePrograms(int limit, Instant deadlineAt) {
		return ActivePrograms.failure(ActivePrograms.Status.NOT_SUPPORTED);
	}

	/**
	 * Whether this store writes the audit event of each force-release and revoke decision durably in the same atomic
	 * step as the transition (the Redis store's script appends it to the program's admin audit stream). The audit
	 * layer then does not write those events to durable sinks again; stores that answer {@code false} (the default)
	 * get their admin decisions written to the durable sinks before success is reported.
	 */
	default boolean writesAdminAuditAtomically() {
		return false;
	}

}
