package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * The program-wide maintenance of {@link RedisLeaseStore}: the expiry sweep ({@code sweep.lua}) and the
 * restore/failover recovery that revokes every active lease of a program ({@code lease.lua} recover).
 */
final class ProgramMaintenance {

	/** Leases revoked per recover call. */
	private static final int RECOVER_BATCH = 500;

	private final ProgramArguments arguments;

	private final LeaseCalls calls;

	ProgramMaintenance(ProgramArguments arguments, LeaseCalls calls) {
		this.arguments = arguments;
		this.calls = calls;
	}

	/**
	 * One call of the {@code sweep} function: the program's due leases, at most the batch limit, each re-checked and
	 * ended in the script. A reply that arrives after the deadline, or not at all, is
	 * {@link SweepResult.Status#OUTCOME_UNKNOWN} (the leases it ended keep their terminal evidence).
	 */
	SweepResult sweepExpired(SweepRequest request) {
		FunctionCall call = this.arguments.sweep(request.scope(), request.batchLimit(), request.deadlineAt());
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
		if (!"swept".equals(ReplyReader.text(reply, 0))) {
			return SweepResult.failure(SweepResult.Status.DEADLINE_EXCEEDED, decidedAt);
		}
		List<LeaseRecord> ended = new ArrayList<>(reply.size() - 6);
		for (int i = 6; i < reply.size(); i++) {
			try {
				ended.add(ReplyReader.keyedRecord(ReplyReader.text(reply, i), scope));
			}
			catch (CorruptRecordException ex) {
				// ended in the script (evidence kept) but not reportable: alert, never a raw key in the log
				this.calls.raise(new LeaseAlert(Reason.CORRUPT_RECORD, scope, "sweep", "history"));
			}
		}
		return new SweepResult(SweepResult.Status.SWEPT, ended, Integer.parseInt(ReplyReader.text(reply, 2)),
				Long.parseLong(ReplyReader.text(reply, 3)), "1".equals(ReplyReader.text(reply, 4)),
				Long.parseLong(ReplyReader.text(reply, 5)), decidedAt);
	}

	/**
	 * Revokes every active lease of the program, {@link #RECOVER_BATCH} per call, with one audit event each.
	 * @return the number of leases revoked, or -1 when the backend could not complete the recovery (retry it)
	 * @throws InvalidLeaseRequestException for a missing administrator or reason
	 */
	long recoverProgram(ProgramScope scope, String adminPrincipalId, String adminCredentialId, String reason,
			int auditLength, Instant deadlineAt) {
		Identifiers.require("admin_principal_id", adminPrincipalId);
		Identifiers.require("admin_credential_id", adminCredentialId);
		if (reason == null || reason.isBlank() || reason.length() > AdminRequest.MAX_REASON_LENGTH) {
			throw new InvalidLeaseRequestException("reason", "must be 1.." + AdminRequest.MAX_REASON_LENGTH
					+ " characters");
		}
		String requestId = Identifiers.generate("request");
		long total = 0;
		while (true) {
			FunctionCall call = this.arguments.recover(scope, RECOVER_BATCH, adminPrincipalId, adminCredentialId,
					reason, requestId, auditLength, deadlineAt);
			List<Object> reply;
			try {
				reply = this.calls.run(call, deadlineAt);
			}
			catch (ScriptFailure failure) {
				return -1;
			}
			if (!"lease_revoked".equals(ReplyReader.text(reply, 0))) {
				return -1;
			}
			total += Long.parseLong(ReplyReader.text(reply, 2));
			if (Long.parseLong(ReplyReader.text(reply, 3)) == 0) {
				return total;
			}
		}
	}

}
