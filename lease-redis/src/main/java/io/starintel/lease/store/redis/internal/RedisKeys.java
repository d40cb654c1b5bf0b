package io.starintel.lease.store.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.internal.IdempotencyKeys;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;

/**
 * The Redis key layout of ARCHITECTURE.md: every key of a (tenant, program) shares the hash tag {@code {T}}, so each
 * script touches one slot and the store runs unchanged on Redis Cluster.
 *
 * <pre>
 * P{T}:l:D          hash: the identity (storage v3): m/f = the active record's mutable and fixed parts, c = the
 *                    fencing counter (never deleted), h = the fenced-write high-water mark, e = the epoch stamp, p =
 *                    in idx:program, a = has attached keys, n + t0..t15 = the terminal history ring (prelude.lua)
 * P{T}:idem:H        string: the result of one mutating request; an acquire's result also resolves its lease id
 *                    (v3 lease ids are lease_H_random) and carries the lease's state
 * P{T}:quarantine:D  string: DUMP of a corrupt identity, for an operator
 * P{T}:idx:program   sorted set (score 0, member D): the program's identities (written once each, pruned lazily)
 * P{T}:idx:expiry    sorted set (score expires_at ms, member D): the active leases, by expiry
 * P{T}:lease:D, P{T}:fence:D, P{T}:hist:D, P{T}:lid:L: storage v2, read on an identity's first touch (lease:D then
 *                    holds the tombstone that makes a v2 process refuse the identity)
 * P{T}:expired       list: D + record of leases ended as expired outside the sweeper, drained by the sweeper
 * P{T}:audit         stream: audit events of the program
 * P{T}:kv:K          hash: an attached key (o = owning lease id + token, n = name, v = value), K = SHA-1 of the name
 * P{T}:att:L:N       hash: the attached keys of lease L with token N (K to name); deleted by every ending transition
 * </pre>
 * P is {@value LockIdentity#KEY_PREFIX}, T is {@link ProgramScope#hashTag()}, D is {@link LockIdentity#keyDigest()}.
 * Raw principals and targets never appear in key names: they are hashed.
 */
public final class RedisKeys {

	private final String base;

	/** Keys of one program. */
	public RedisKeys(ProgramScope scope) {
		this.base = LockIdentity.KEY_PREFIX + "{" + scope.hashTag() + "}:";
	}

	private RedisKeys(String base) {
		this.base = base;
	}

	/**
	 * Keys of the program whose base ({@link #base()}) is given: a failover recovery finds programs by their keys,
	 * not by name.
	 * @throws IllegalArgumentException for a text that is not a program's base
	 */
	public static RedisKeys ofBase(String base) {
		if (!base.startsWith(LockIdentity.KEY_PREFIX + "{") || !base.endsWith("}:")) {
			throw new IllegalArgumentException("not a program's key base");
		}
		return new RedisKeys(base);
	}

	/** The base of the program whose index key ({@link #programIndex()}) is given, or null for another key. */
	public static @Nullable String baseOfProgramIndex(String key) {
		String suffix = "}:" + PROGRAM_INDEX;
		if (!key.startsWith(LockIdentity.KEY_PREFIX + "{") || !key.endsWith(suffix)) {
			return null;
		}
		return key.substring(0, key.length() - PROGRAM_INDEX.length());
	}

	/** The pattern (SCAN MATCH) of every program's index key. */
	public static String programIndexPattern() {
		return LockIdentity.KEY_PREFIX + "{*}:" + PROGRAM_INDEX;
	}

	private static final String PROGRAM_INDEX = "idx:program";

	/** The identity hash of D (storage v3). */
	public String identity(String digest) {
		return this.base + "l:" + digest;
	}

	/**
	 * The key a lease id resolves through: its acquire's result {@code idem:H} for a v3 lease id
	 * ({@code lease_H_random}), the v2 evidence {@code lid:L} otherwise.
	 */
	public String leaseResolution(String leaseId) {
		String hash = leaseIdHash(leaseId);
		return (hash != null) ? this.base + "idem:" + hash : leaseId(leaseId);
	}

	/** The acquire's idempotency hash a v3 lease id carries ({@code lease_<40 hex>_<random>}), or null. */
	public static @Nullable String leaseIdHash(String leaseId) {
		if (leaseId.length() < 48 || !leaseId.startsWith("lease_") || leaseId.charAt(46) != '_') {
			return null;
		}
		for (int i = 6; i < 46; i++) {
			char c = leaseId.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return null;
			}
		}
		return leaseId.substring(6, 46);
	}

	/** Keys of the identity's program. */
	public static RedisKeys of(LockIdentity identity) {
		return new RedisKeys(identity.scope());
	}

	/** The common prefix of every key of this program, {@code P{T}:}. */
	public String base() {
		return this.base;
	}

	/** The active record of an identity. */
	public String lease(String digest) {
		return this.base + "lease:" + digest;
	}

	/** The durable fencing counter and high-water mark of an identity. */
	public String fence(String digest) {
		return this.base + "fence:" + digest;
	}

	/** Terminal history of an identity. */
	public String history(String digest) {
		return this.base + "hist:" + digest;
	}

	/** The lease-id key of lease {@code leaseId}: its key digest while active, digest and state after it ended. */
	public String leaseId(String leaseId) {
		return this.base + "lid:" + leaseId;
	}

	/** Quarantined copy of a corrupt record. */
	public String quarantine(String digest) {
		return this.base + "quarantine:" + digest;
	}

	/** Idempotency record of one request (operation, lock key, principal, request id). */
	public String idempotency(Operation operation, String lockKey, String principalId, String requestId) {
		return this.base + "idem:" + idempotencyHash(operation.wireName(), lockKey, principalId, requestId);
	}

	/** The hash part of an idempotency key (core's rule: {@link IdempotencyKeys}). */
	public static String idempotencyHash(String operation, String lockKey, String principalId, String requestId) {
		return IdempotencyKeys.hash(operation, lockKey, principalId, requestId);
	}

	/** Index of all active leases of the program. */
	public String programIndex() {
		return this.base + "idx:program";
	}

	/** Index of the active leases of one owner principal. */
	public String ownerIndex(String principalId) {
		return this.base + "idx:owner:" + sha1Hex(principalId);
	}

	/** Index of the active leases on one target. */
	public String targetIndex(String targetNamespace, String targetId) {
		return this.base + "idx:target:" + sha1Hex(targetNamespace + "\n" + targetId);
	}

	/** The expiry queue. */
	public String expiryQueue() {
		return this.base + "idx:expiry";
	}

	/** An attached key of the program (attach.lua), named by the SHA-1 of its name. */
	public String attachedKey(String name) {
		return this.base + "kv:" + attachedKeyHash(name);
	}

	/** The hash part of an attached key's name. */
	public static String attachedKeyHash(String name) {
		return sha1Hex(name);
	}

	/** The program's audit stream. */
	public String audit() {
		return this.base + "audit";
	}

	static String sha1Hex(String text) {
		try {
			MessageDigest sha = MessageDigest.getInstance("SHA-1");
			return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required by the Java platform", ex);
		}
	}

}
