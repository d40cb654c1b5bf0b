package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

	/** {@code P{T}:hist:D}. */
	final byte[] historyKey;

	/** {@code P{T}:idx:program}. */
	final byte[] programIndexKey;

	/** {@code P{T}:idx:expiry}. */
	final byte[] expiryQueueKey;

	/** {@code P{T}:lid:}, the prefix of the lease-id keys of the program. */
	private final byte[] leaseIdPrefix;

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
		this.historyKey = bytes(this.keys.history(this.digest));
		this.programIndexKey = bytes(this.keys.programIndex());
		this.expiryQueueKey = bytes(this.keys.expiryQueue());
		this.leaseIdPrefix = bytes(this.keys.leaseId(""));
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

	/** {@code P{T}:lid:<lease id>} ({@link RedisKeys#leaseId}), built straight to bytes (lease ids are ASCII). */
	byte[] leaseIdKey(String leaseId) {
		byte[] prefix = this.leaseIdPrefix;
		byte[] key = Arrays.copyOf(prefix, prefix.length + leaseId.length());
		for (int i = 0; i < leaseId.length(); i++) {
			key[prefix.length + i] = (byte) leaseId.charAt(i);
		}
		return key;
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
