package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.LeaseResult;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.ResultCode;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.LeaseAlerts;
import io.starintel.lease.store.redis.internal.ScriptExecutor;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * Runs function calls for the store's parts and turns what comes back into typed results: the single-lease reply
 * ({@link ReplyReader}), a failed call ({@link ScriptFailure}) as {@code deadline_exceeded},
 * {@code lease_backend_unavailable} or {@code lease_outcome_unknown}, and the alerts a result calls for (every alert
 * logged, the configured {@link LeaseAlerts} told as well). No Redis exception crosses it.
 */
final class LeaseCalls {

	private final ScriptExecutor executor;

	private final LeaseAlerts alerts;

	private final GroupCommit groupCommit;

	LeaseCalls(ScriptExecutor executor, LeaseAlerts alerts) {
		this.executor = executor;
		this.alerts = alerts;
		this.groupCommit = new GroupCommit(executor);
	}

	/**
	 * The raw reply of one call, or the {@link ScriptFailure} that stands for the lack of one; acquires, renewals,
	 * releases and commit authorizations join the program's group commit ({@link GroupCommit}).
	 */
	List<Object> run(FunctionCall call, Instant deadlineAt) throws ScriptFailure {
		return this.groupCommit.run(call, deadlineAt);
	}

	/**
	 * Whether a reply (of any function's shape) is the refusal of an identity whose lease was written on another node
	 * and awaits the operator's recovery (manual failover recovery).
	 */
	static boolean refusedForRecovery(List<Object> reply) {
		for (int i = 0; i < Math.min(2, reply.size()); i++) {
			if (reply.get(i) instanceof byte[] bytes && java.util.Arrays.equals(bytes, RECOVERY_REQUIRED)) {
				return true;
			}
		}
		return false;
	}

	private static final byte[] RECOVERY_REQUIRED = Reason.RECOVERY_REQUIRED.wireName()
		.getBytes(java.nio.charset.StandardCharsets.US_ASCII);

	/**
	 * One single-lease call and its typed result.
	 * @param target the identity's keys, or null when the call names the lease by lease id
	 * @param acquire the acquire request (a fresh acquire's reply carries only what the request lacks), or null
	 * @param leaseId the lease id an acquire generated, or null
	 */
	LeaseResult lease(FunctionCall call, String operation, boolean mutating, @Nullable IdentityKeys target,
			Instant deadlineAt, @Nullable AcquireRequest acquire, @Nullable String leaseId) {
		LockIdentity identity = (target != null) ? target.identity : null;
		List<Object> reply;
		try {
			reply = run(call, deadlineAt);
		}
		catch (ScriptFailure failure) {
			return failed(failure, mutating);
		}
		try {
			return checked(ReplyReader.single(reply, identity, acquire, leaseId), target, operation);
		}
		catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
			alert(Reason.CORRUPT_RECORD, identity, (target != null) ? target.digest : "lease-id", operation);
			return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, Reason.CORRUPT_RECORD, null);
		}
	}

	/** Raises the alert a result calls for (corrupt record, counter exhausted, clock behind) and returns it. */
	LeaseResult checked(LeaseResult result, @Nullable IdentityKeys target, String operation) {
		if (result.reason() == Reason.CORRUPT_RECORD || result.reason() == Reason.FENCING_COUNTER_EXHAUSTED
				|| result.reason() == Reason.BACKEND_CLOCK_BEHIND) {
			alert(result.reason(), (target != null) ? target.identity : null,
					(target != null) ? target.digest : "lease-id", operation);
		}
		return result;
	}

	void alert(Reason reason, @Nullable LockIdentity identity, String reference, String operation) {
		ProgramScope scope = (identity != null) ? identity.scope() : ProgramScope.of("unknown", "unknown");
		raise(new LeaseAlert(reason, scope, operation, reference));
	}

	/** Every alert is logged; the configured {@link LeaseAlerts} (metrics, audit) receives it as well. */
	void raise(LeaseAlert alert) {
		LeaseAlerts.LOG.raise(alert);
		if (this.alerts != LeaseAlerts.LOG) {
			this.alerts.raise(alert);
		}
	}

	/** A call without a usable reply: mutations (and commit authorizations) become outcome-unknown. */
	static LeaseResult failed(ScriptFailure failure, boolean mutating) {
		switch (failure.kind()) {
			case DEADLINE_BEFORE_SUBMISSION:
				return LeaseResult.failure(ResultCode.DEADLINE_EXCEEDED, Reason.NONE, null);
			case NOT_SUBMITTED:
				return LeaseResult.failure(ResultCode.LEASE_BACKEND_UNAVAILABLE, failure.reason(), null);
			default:
				return LeaseResult.failure(
						mutating ? ResultCode.LEASE_OUTCOME_UNKNOWN : ResultCode.LEASE_BACKEND_UNAVAILABLE,
						failure.reason(), null);
		}
	}

}
