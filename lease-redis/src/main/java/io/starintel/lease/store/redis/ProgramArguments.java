package io.starintel.lease.store.redis;

import java.time.Instant;

import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.internal.LeaseLibrary;

import static io.starintel.lease.store.redis.ArgumentBytes.millis;
import static io.starintel.lease.store.redis.ArgumentBytes.number;
import static io.starintel.lease.store.redis.IdentityKeys.bytes;

/**
 * The keys and arguments of the functions that work on a whole program (list, recover in {@code lease.lua}, sweep in
 * {@code sweep.lua}), one named builder per function, in the order their headers document.
 */
final class ProgramArguments {

	private final byte[] policy;

	/** @param policy the policy argument ({@link ArgumentBytes#policy}) */
	ProgramArguments(byte[] policy) {
		this.policy = policy;
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
		byte[][] k = { bytes(keys.programIndex()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), bytes(after), number(pageSize),
				number(Math.max(256, pageSize * 4)), bytes(kind), bytes(a), bytes(b), this.policy };
		return new FunctionCall(LeaseLibrary.Function.LIST, k, args);
	}

	/**
	 * @param base the program's key base {@code P{T}:} (a recovery after a failover knows programs by their keys)
	 * @param onlyIfForeign whether to recover only when the program's epoch stamp is another node's ({@code if_foreign}),
	 * else unconditionally ({@code force}: a restore)
	 */
	FunctionCall recover(String base, int batch, String adminPrincipalId, String adminCredentialId, String reason,
			String requestId, int auditLength, boolean onlyIfForeign, Instant deadlineAt) {
		RedisKeys keys = RedisKeys.ofBase(base);
		byte[][] k = { bytes(keys.programIndex()), bytes(keys.audit()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), number(batch), bytes(adminPrincipalId),
				bytes(adminCredentialId), bytes(reason), bytes(requestId), this.policy, number(auditLength),
				bytes(onlyIfForeign ? "if_foreign" : "force") };
		return new FunctionCall(LeaseLibrary.Function.RECOVER, k, args);
	}

	FunctionCall sweep(ProgramScope scope, int limit, Instant deadlineAt) {
		RedisKeys keys = new RedisKeys(scope);
		byte[][] k = { bytes(keys.expiryQueue()), bytes(keys.programIndex()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), this.policy, number(limit) };
		return new FunctionCall(LeaseLibrary.Function.SWEEP, k, args);
	}

}
