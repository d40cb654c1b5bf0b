package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.starintel.lease.audit.internal.AdminDecision;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.internal.ScriptExecutor;
import io.starintel.lease.store.redis.internal.ScriptFailure;

/**
 * Restore and failover recovery ({@code lease.lua} recover), the operator's entries: one program unconditionally (a
 * restore: every active lease revoked), and every program of one primary or of all primaries, where only the leases
 * written on another node (a promotion, restart or restore since: the epoch stamp, {@code prelude.lua}) are revoked.
 * Each call visits {@value #BATCH} identities of the program's index from a cursor, revokes as the mode says (one
 * audit entry each, in the same call) and stamps the node on each identity it visits. The automatic recovery of one
 * identity needs none of this: every call revokes a foreign lease it meets before deciding.
 */
final class ProgramRecovery {

	private static final Logger logger = LoggerFactory.getLogger(ProgramRecovery.class);

	/** Identities visited per recover call (one call holds the server for about this many visits). */
	static final int BATCH = 500;

	private final ScriptExecutor executor;

	private final ProgramArguments arguments;

	ProgramRecovery(ScriptExecutor executor, ProgramArguments arguments) {
		this.executor = executor;
		this.arguments = arguments;
	}

	/** What one program's recovery did: leases revoked, and whether it visited the whole index. */
	record Outcome(long revoked, boolean complete) {
	}

	/**
	 * Recovers one program: visits its index in batches until done or the deadline comes.
	 * @param onlyIfForeign revoke only the leases written on another node
	 * @param decision the recovery's decision (its audit entries' correlation id, decision id and latency origin)
	 */
	Outcome recover(String base, String principalId, String credentialId, String reason, boolean onlyIfForeign,
			Instant deadlineAt, AdminDecision decision) {
		String requestId = Identifiers.generate("request");
		long revoked = 0;
		String after = "";
		while (true) {
			FunctionCall call = this.arguments.recover(base, BATCH, principalId, credentialId, reason, requestId,
					onlyIfForeign, after, deadlineAt, decision);
			List<Object> reply;
			try {
				reply = this.executor.run(call.function(), deadlineAt, call.keys(), call.args());
			}
			catch (ScriptFailure failure) {
				return new Outcome(revoked, false);
			}
			if (reply.size() < 4 || !"lease_revoked".equals(ReplyReader.text(reply, 0))) {
				return new Outcome(revoked, false);
			}
			revoked += Long.parseLong(ReplyReader.text(reply, 2));
			after = ReplyReader.text(reply, 3);
			if (after.isEmpty()) {
				return new Outcome(revoked, true);
			}
			if (Instant.now().isAfter(deadlineAt)) {
				return new Outcome(revoked, false);
			}
		}
	}

	/**
	 * Recovers every program of one primary ({@code node} = {@code host:port}) or of all primaries known now: the
	 * programs are found by their index keys; the leases written on another node are revoked.
	 */
	RecoveryReport recoverPromoted(@Nullable String node, String principalId, String credentialId, String reason,
			Instant deadlineAt, AdminDecision decision) {
		ScriptExecutor.Scan scan = this.executor.scanKeys(RedisKeys.programIndexPattern(), node, deadlineAt);
		int programs = 0;
		int recovered = 0;
		int left = scan.complete() ? 0 : 1;
		long revoked = 0;
		for (byte[] key : scan.keys()) {
			String base = RedisKeys.baseOfProgramIndex(new String(key, StandardCharsets.UTF_8));
			if (base == null) {
				continue;
			}
			programs++;
			Outcome outcome = recover(base, principalId, credentialId, reason, true, deadlineAt, decision);
			revoked += outcome.revoked();
			if (!outcome.complete()) {
				left++;
			}
			else if (outcome.revoked() > 0) {
				recovered++;
			}
		}
		if (revoked > 0 || left > 0) {
			logger.warn("Failover recovery on {} primary(ies): {} program(s) of {} had leases written on another node, "
					+ "{} lease(s) revoked, {} program(s) left", scan.nodes(), recovered, programs, revoked, left);
		}
		return new RecoveryReport(scan.nodes(), programs, recovered, revoked, left);
	}

}
