package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.starintel.lease.core.internal.IdempotencyKeys;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.store.redis.internal.RedisKeys;

/**
 * The keys and the per-identity function arguments of one identity, derived once per identity (digests, key names,
 * the record's identity prefix and their bytes) and memoized in a bounded map: the hot path neither hashes nor
 * re-encodes them.
 */
final class IdentityKeys {

	private static final int MAXIMUM_ENTRIES = 65_536;

	private static final Map<LockIdentity, IdentityKeys> CACHE = new ConcurrentHashMap<>();

	final LockIdentity identity;

	final RedisKeys keys;

	final String digest;

	final String lockKey;

	/** The record's identity prefix (see {@link StoredRecord#identityPrefix}). */
	final String identityPrefix;

	final byte[] leaseKey;

	final byte[] fenceKey;

	final byte[] base;

	final byte[] digestBytes;

	final byte[] identityPrefixBytes;

	/** {@code P{T}:idem:}, the prefix of every idempotency key of the program. */
	private final byte[] idempotencyPrefix;

	private IdentityKeys(LockIdentity identity) {
		this.identity = identity;
		this.keys = RedisKeys.of(identity);
		this.digest = identity.keyDigest();
		this.lockKey = LockIdentity.KEY_PREFIX + this.digest;
		this.identityPrefix = StoredRecord.identityPrefix(identity);
		this.leaseKey = bytes(this.keys.lease(this.digest));
		this.fenceKey = bytes(this.keys.fence(this.digest));
		this.base = bytes(this.keys.base());
		this.digestBytes = bytes(this.digest);
		this.identityPrefixBytes = bytes(this.identityPrefix);
		this.idempotencyPrefix = bytes(this.keys.base() + "idem:");
	}

	static IdentityKeys of(LockIdentity identity) {
		IdentityKeys cached = CACHE.get(identity);
		if (cached != null) {
			return cached;
		}
		IdentityKeys created = new IdentityKeys(identity);
		if (CACHE.size() >= MAXIMUM_ENTRIES) {
			CACHE.clear();
		}
		CACHE.put(identity, created);
		return created;
	}

	/** The idempotency key ({@link RedisKeys#idempotency}), built straight to bytes. */
	byte[] idempotency(Operation operation, String principalId, String requestId) {
		return IdempotencyKeys.key(this.idempotencyPrefix, operation.wireName(), this.lockKey, principalId, requestId);
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
