package io.starintel.lease.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.audit.internal.AdminDecision;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.redis.internal.LeaseLibrary;
import io.starintel.lease.store.redis.internal.RedisKeys;

import static io.starintel.lease.store.redis.ArgumentBytes.millis;
import static io.starintel.lease.store.redis.ArgumentBytes.number;
import static io.starintel.lease.store.redis.IdentityKeys.bytes;

/**
 * The keys and arguments of the functions that work on a whole program (list, recover in {@code lease.lua}, sweep in
 * {@code sweep.lua}), one named builder per function, in the order their headers document.
 */
final class ProgramArguments {

	private final CallSettings settings;

	/** @param settings the arguments every call shares (policy, recovery, audit bound) */
	ProgramArguments(CallSettings settings) {
		this.settings = settings;
	}

	FunctionCall list(ListFilter filter, String after, int pageSize, Instant deadlineAt) {
		RedisKeys keys = new RedisKeys(filter.scope());
		String kind = "program";
		String a = "";
		String b = "";
		if (filter instanceof ListFilter.ByOwner owner) {
			kind = "owner";
			a = owner.ownerPrincipalId();
		}
		else if (filter instanceof ListFilter.ByTarget target) {
			kind = "target";
			a = target.targetNamespace();
			b = target.targetId();
		}
		byte[][] k = { bytes(keys.programIndex()), bytes(keys.audit()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), bytes(after), number(pageSize),
				number(Math.max(256L, pageSize * 4L)), bytes(kind), bytes(a), bytes(b), this.settings.policy(),
				this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.LIST, k, args);
	}

	/**
	 * @param base the program's key base {@code P{T}:} (a recovery after a failover knows programs by their keys)
	 * @param onlyIfForeign whether to revoke only the leases written on another node ({@code if_foreign}), else every
	 * active lease ({@code force}: a restore)
	 * @param after the last identity digest the previous call visited, or empty
	 * @param decision the recovery's decision: correlation id, decision id and latency origin of its audit entries
	 */
	FunctionCall recover(String base, int batch, String adminPrincipalId, String adminCredentialId, String reason,
			String requestId, boolean onlyIfForeign, String after, Instant deadlineAt, AdminDecision decision) {
		RedisKeys keys = RedisKeys.ofBase(base);
		byte[][] k = { bytes(keys.programIndex()), bytes(keys.audit()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), number(batch), bytes(adminPrincipalId),
				bytes(adminCredentialId), bytes(reason), bytes(requestId), this.settings.policy(),
				this.settings.auditLength(), bytes(onlyIfForeign ? "if_foreign" : "force"), bytes(after),
				LeaseArguments.correlation(decision), bytes(decision.decisionId()),
				number(decision.startedAtMillis()) };
		return new FunctionCall(LeaseLibrary.Function.RECOVER, k, args);
	}

	FunctionCall sweep(ProgramScope scope, int limit, @Nullable String claimant, Duration claimFor,
			Instant deadlineAt) {
		RedisKeys keys = new RedisKeys(scope);
		byte[][] k = { bytes(keys.expiryQueue()), bytes(keys.audit()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), this.settings.policy(), number(limit),
				this.settings.recovery(), this.settings.auditLength(), bytes((claimant != null) ? claimant : ""),
				number(Math.max(1, claimFor.toMillis())) };
		return new FunctionCall(LeaseLibrary.Function.SWEEP, k, args);
	}

	/** Reports lease operations in the programs (their registry entries' time set to backend time). */
	static FunctionCall programsTouch(List<ProgramScope> programs, Instant deadlineAt) {
		byte[][] args = new byte[programs.size() + 1][];
		args[0] = millis(deadlineAt);
		for (int i = 0; i < programs.size(); i++) {
			args[i + 1] = bytes(ProgramRegistry.member(programs.get(i)));
		}
		return new FunctionCall(LeaseLibrary.Function.PROGRAMS_TOUCH, new byte[][] { bytes(RedisKeys.programRegistry()) },
				args);
	}

	/** The programs touched within the horizon, most recent first, at most limit. */
	static FunctionCall programsList(Duration horizon, int limit, Instant deadlineAt) {
		return new FunctionCall(LeaseLibrary.Function.PROGRAMS_LIST,
				new byte[][] { bytes(RedisKeys.programRegistry()) },
				new byte[][] { millis(deadlineAt), number(horizon.toMillis()), number(limit) });
	}

}
