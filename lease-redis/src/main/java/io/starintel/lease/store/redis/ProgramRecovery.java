package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.internal.ScriptExecutor;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * Restore and failover recovery ({@code lease.lua} recover): revokes every active lease of a program, in batches,
 * each revocation written to the program's audit stream in the same function call, then stamps the serving node's
 * identity on the program (the epoch, {@code prelude.lua}), which lets it serve calls again. Three entries: one
 * program unconditionally (a restore), every program of one primary or of all primaries whose stamp is another
 * node's (after a promotion: the programs are found by their epoch keys), and the automatic recovery of the program
 * a call was refused for ({@link FailoverRecovery.Mode#AUTOMATIC}), at most one at a time per program.
 */
final class ProgramRecovery {

	private static final Logger logger = LoggerFactory.getLogger(ProgramRecovery.class);

	/** Leases revoked per recover call (one call holds the server for about this many revocations). */
	static final int BATCH = 500;

	private final ScriptExecutor executor;

	private final ProgramArguments arguments;

	private final FailoverRecovery policy;

	private final int auditLength;

	private final Set<String> running = ConcurrentHashMap.newKeySet();

	ProgramRecovery(ScriptExecutor executor, ProgramArguments arguments, FailoverRecovery policy, int auditLength) {
		this.executor = executor;
		this.arguments = arguments;
		this.policy = policy;
		this.auditLength = auditLength;
	}

	/** What one program's recovery did. */
	record Outcome(long revoked, boolean complete, boolean needed) {

		static final Outcome FAILED = new Outcome(0, false, true);

	}

	/**
	 * Recovers one program: revokes its active leases in batches until none is left or the deadline comes.
	 * @param onlyIfForeign recover only when the program's stamp is another node's
	 */
	Outcome recover(String base, String principalId, String credentialId, String reason, boolean onlyIfForeign,
			Instant deadlineAt) {
		String requestId = Identifiers.generate("request");
		long revoked = 0;
		while (true) {
			FunctionCall call = this.arguments.recover(base, BATCH, principalId, credentialId, reason, requestId,
					this.auditLength, onlyIfForeign, deadlineAt);
			List<Object> reply;
			try {
				reply = this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
			}
			catch (ScriptFailure failure) {
				return new Outcome(revoked, false, true);
			}
			if (reply.size() < 5 || !"lease_revoked".equals(ReplyReader.text(reply, 0))) {
				return new Outcome(revoked, false, true);
			}
			revoked += Long.parseLong(ReplyReader.text(reply, 2));
			String state = ReplyReader.text(reply, 4);
			if ("current".equals(state)) {
				return new Outcome(0, true, false);
			}
			if ("recovered".equals(state)) {
				return new Outcome(revoked, true, true);
			}
			if (Instant.now().isAfter(deadlineAt)) {
				return new Outcome(revoked, false, true);
			}
		}
	}

	/**
	 * The automatic recovery of the program a call was refused for: runs it when the policy is automatic and no other
	 * thread is recovering the program. Returns whether the program is served again (the call may be sent once more).
	 */
	boolean recoverAutomatically(String base, Instant deadlineAt) {
		if (this.policy.mode() != FailoverRecovery.Mode.AUTOMATIC || !this.running.add(base)) {
			return false;
		}
		try {
			Outcome outcome = recover(base, this.policy.principalId(), this.policy.credentialId(),
					FailoverRecovery.AUTOMATIC_REASON, true, deadlineAt);
			if (outcome.needed()) {
				logger.warn("Failover recovery of lease program {}: {} active lease(s) revoked{}", tag(base),
						outcome.revoked(), outcome.complete() ? "" : " so far (continues with the next call)");
			}
			return outcome.complete();
		}
		finally {
			this.running.remove(base);
		}
	}

	/**
	 * Recovers every program whose stamp is another node's, on one primary ({@code node} = {@code host:port}) or on
	 * all primaries known now.
	 */
	RecoveryReport recoverPromoted(@Nullable String node, String principalId, String credentialId, String reason,
			Instant deadlineAt) {
		ScriptExecutor.Scan scan = this.executor.scanKeys(RedisKeys.epochKeyPattern(), node, deadlineAt);
		int programs = 0;
		int recovered = 0;
		int left = scan.complete() ? 0 : 1;
		long revoked = 0;
		for (byte[] key : scan.keys()) {
			String base = RedisKeys.baseOfEpochKey(new String(key, StandardCharsets.UTF_8));
			if (base == null) {
				continue;
			}
			programs++;
			Outcome outcome = recover(base, principalId, credentialId, reason, true, deadlineAt);
			revoked += outcome.revoked();
			if (!outcome.complete()) {
				left++;
			}
			else if (outcome.needed()) {
				recovered++;
			}
		}
		if (recovered > 0 || left > 0) {
			logger.warn("Failover recovery on {} primary(ies): {} of {} program(s) recovered, {} lease(s) revoked, "
					+ "{} left", scan.nodes(), recovered, programs, revoked, left);
		}
		return new RecoveryReport(scan.nodes(), programs, recovered, revoked, left);
	}

	/** A program's hash tag for logs: a digest of tenant and program, never a raw name. */
	static String tag(String base) {
		int open = base.indexOf('{');
		int close = base.indexOf('}');
		return (open >= 0 && close > open) ? base.substring(open + 1, close) : "?";
	}

}
