package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;

/**
 * The keys and the shared script arguments of one identity, derived once per operation (the key digest is a
 * SHA-256 over the canonical text: computing it once keeps the store's own cost small).
 */
record IdentityKeys(LockIdentity identity, RedisKeys keys, String digest, String lockKey) {

	static IdentityKeys of(LockIdentity identity) {
		String digest = identity.keyDigest();
		return new IdentityKeys(identity, RedisKeys.of(identity), digest, LockIdentity.KEY_PREFIX + digest);
	}

	String lease() {
		return this.keys.lease(this.digest);
	}

	String fence() {
		return this.keys.fence(this.digest);
	}

	String idempotency(Operation operation, String principalId, String requestId) {
		return this.keys.idempotency(operation, this.lockKey, principalId, requestId);
	}

	/** ARGV[1..13] of the shared identity layout (see prelude.lua). */
	List<String> args(Instant deadlineAt, LeasePolicy policy) {
		List<String> args = new ArrayList<>(32);
		args.add(Long.toString(deadlineAt.toEpochMilli()));
		args.add(this.keys.base());
		args.add(this.digest);
		args.add(this.lockKey);
		args.addAll(this.identity.components());
		args.add(Integer.toString(policy.historyLength()));
		args.add(Long.toString(policy.historyRetention().toMillis()));
		return args;
	}

}
