package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.starintel.lease.core.internal.IdempotencyKeys;
import io.starintel.lease.core.internal.Identifiers;
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

	/** {@code P{T}:l:D}, the identity hash (storage v3). */
	final byte[] identityKey;

	/** {@code P{T}:audit}. */
	final byte[] auditKey;

	final byte[] base;

	final byte[] digestBytes;

	final byte[] identityPrefixBytes;

	/** {@code P{T}:idx:program}. */
	final byte[] programIndexKey;

	/** {@code P{T}:idx:expiry}. */
	final byte[] expiryQueueKey;

	/** {@code P{T}:idem:}, the prefix of every idempotency key of the program. */
	private final byte[] idempotencyPrefix;

	private IdentityKeys(LockIdentity identity) {
		this.identity = identity;
		this.keys = RedisKeys.of(identity);
		this.digest = identity.keyDigest();
		this.lockKey = LockIdentity.KEY_PREFIX + this.digest;
		this.identityPrefix = StoredRecord.identityPrefix(identity);
		this.identityKey = bytes(this.keys.identity(this.digest));
		this.auditKey = bytes(this.keys.audit());
		this.base = bytes(this.keys.base());
		this.digestBytes = bytes(this.digest);
		this.identityPrefixBytes = bytes(this.identityPrefix);
		this.idempotencyPrefix = bytes(this.keys.base() + "idem:");
		this.programIndexKey = bytes(this.keys.programIndex());
		this.expiryQueueKey = bytes(this.keys.expiryQueue());
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

	/**
	 * The idempotency key ({@link RedisKeys#idempotency}), built straight to bytes. An acquire's key leaves the lock
	 * key out: a request id is unique program-wide, so the same principal's request id reused on another identity of
	 * the program finds the first acquire's result, whose request digest differs, and is {@code idempotency_conflict}
	 * (docs/worker-api.md) without a key or command of its own. Every other operation names its lease's lock key.
	 */
	byte[] idempotency(Operation operation, String principalId, String requestId) {
		return IdempotencyKeys.key(this.idempotencyPrefix, operation.wireName(),
				(operation == Operation.ACQUIRE) ? "" : this.lockKey, principalId, requestId);
	}

	/**
	 * Where storage v2 kept an acquire's result (the lock key in its hash): read only for an identity converted from
	 * v2, so that a v2 request retried after the upgrade still replays its result.
	 */
	byte[] v2AcquireIdempotency(String principalId, String requestId) {
		return IdempotencyKeys.key(this.idempotencyPrefix, Operation.ACQUIRE.wireName(), this.lockKey, principalId,
				requestId);
	}

	/**
	 * A new lease id for the acquire whose idempotency key is given: {@code lease_<its 40-hex hash>_<random>}, so
	 * that the acquire's result resolves the lease id without a key of its own (RedisKeys#leaseResolution); the random
	 * part keeps a re-execution after data loss from reusing an id.
	 */
	String newLeaseId(byte[] acquireIdempotencyKey) {
		String hash = new String(acquireIdempotencyKey, this.idempotencyPrefix.length,
				acquireIdempotencyKey.length - this.idempotencyPrefix.length, StandardCharsets.US_ASCII);
		return Identifiers.generate("lease_" + hash);
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
