package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.internal.AdminDecision;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.internal.CorruptRecordException;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.InvalidLeaseRequestException;
import io.starintel.lease.core.LeaseRecord;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.Reason;
import io.starintel.lease.core.SweepRequest;
import io.starintel.lease.core.SweepResult;
import io.starintel.lease.store.LeaseAlert;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * The program-wide maintenance of {@link RedisLeaseStore}: the expiry sweep ({@code sweep.lua}) and the entries of
 * the restore/failover recovery ({@link ProgramRecovery}).
 */
final class ProgramMaintenance {

	private final ProgramArguments arguments;

	private final LeaseCalls calls;

	private final ProgramRecovery recovery;

	ProgramMaintenance(ProgramArguments arguments, LeaseCalls calls, ProgramRecovery recovery) {
		this.arguments = arguments;
		this.calls = calls;
		this.recovery = recovery;
	}

	/**
	 * One call of the {@code sweep} function: the program's due leases, at most the batch limit, each re-checked and
	 * ended in the script. A reply that arrives after the deadline, or not at all, is
	 * {@link SweepResult.Status#OUTCOME_UNKNOWN} (the leases it ended keep their terminal evidence).
	 */
	SweepResult sweepExpired(SweepRequest request) {
		FunctionCall call = this.arguments.sweep(request.scope(), request.batchLimit(), request.claimant(),
				request.claimFor(), request.deadlineAt());
		List<Object> reply;
		try {
			reply = this.calls.run(call, request.deadlineAt());
		}
		catch (ScriptFailure failure) {
			return SweepResult.failure(switch (failure.kind()) {
				case DEADLINE_BEFORE_SUBMISSION -> SweepResult.Status.DEADLINE_EXCEEDED;
				case NOT_SUBMITTED -> SweepResult.Status.BACKEND_UNAVAILABLE;
				default -> SweepResult.Status.OUTCOME_UNKNOWN;
			}, null);
		}
		try {
			return sweepResult(reply, request.scope());
		}
		catch (CorruptRecordException | IllegalArgumentException | IndexOutOfBoundsException ex) {
			this.calls.raise(new LeaseAlert(Reason.CORRUPT_RECORD, request.scope(), "sweep", "reply"));
			return SweepResult.failure(SweepResult.Status.OUTCOME_UNKNOWN, null);
		}
	}

	private SweepResult sweepResult(List<Object> reply, ProgramScope scope) {
		Instant decidedAt = Instant.ofEpochMilli(Long.parseLong(ReplyReader.text(reply, 1)));
		if (LeaseCalls.refusedForRecovery(reply)) {
			return SweepResult.failure(SweepResult.Status.BACKEND_UNAVAILABLE, decidedAt);
		}
		String code = ReplyReader.text(reply, 0);
		if ("claimed".equals(code)) {
			return SweepResult.failure(SweepResult.Status.CLAIMED, decidedAt);
		}
		if (!"swept".equals(code)) {
			return SweepResult.failure(SweepResult.Status.DEADLINE_EXCEEDED, decidedAt);
		}
		String nextDue = ReplyReader.text(reply, 6);
		List<LeaseRecord> ended = new ArrayList<>(reply.size() - 7);
		for (int i = 7; i < reply.size(); i++) {
			try {
				ended.add(ReplyReader.keyedRecord(reply.get(i), scope));
			}
			catch (CorruptRecordException ex) {
				// ended in the script (evidence kept) but not reportable: alert, never a raw key in the log
				this.calls.raise(new LeaseAlert(Reason.CORRUPT_RECORD, scope, "sweep", "history"));
			}
		}
		return new SweepResult(SweepResult.Status.SWEPT, ended, Integer.parseInt(ReplyReader.text(reply, 2)),
				Long.parseLong(ReplyReader.text(reply, 3)), "1".equals(ReplyReader.text(reply, 4)),
				Long.parseLong(ReplyReader.text(reply, 5)), decidedAt,
				nextDue.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(nextDue)));
	}

	/**
	 * Revokes every active lease of the program, {@link ProgramRecovery#BATCH} per call, with one audit event each,
	 * and stamps the serving node's identity on it (a restore: unconditionally).
	 * @return the number of leases revoked, or -1 when the backend could not complete the recovery (retry it)
	 * @throws InvalidLeaseRequestException for a missing administrator or an invalid reason
	 */
	long recoverProgram(ProgramScope scope, String adminPrincipalId, String adminCredentialId, String reason,
			Instant deadlineAt) {
		requireAdministrator(adminPrincipalId, adminCredentialId, reason);
		ProgramRecovery.Outcome outcome = this.recovery.recover(new RedisKeys(scope).base(), adminPrincipalId,
				adminCredentialId, reason, false, deadlineAt, AdminDecision.currentOrBegin(Instant.now()));
		return outcome.complete() ? outcome.revoked() : -1;
	}

	/** Recovers every program whose state was written under another node ({@link ProgramRecovery#recoverPromoted}). */
	RecoveryReport recoverPromoted(@Nullable String node, String adminPrincipalId, String adminCredentialId,
			String reason, Instant deadlineAt) {
		requireAdministrator(adminPrincipalId, adminCredentialId, reason);
		return this.recovery.recoverPromoted(node, adminPrincipalId, adminCredentialId, reason, deadlineAt,
				AdminDecision.currentOrBegin(Instant.now()));
	}

	private static void requireAdministrator(String adminPrincipalId, String adminCredentialId, String reason) {
		Identifiers.require("admin_principal_id", adminPrincipalId);
		Identifiers.require("admin_credential_id", adminCredentialId);
		AdminRequest.requireValidReason(reason);
	}

}
