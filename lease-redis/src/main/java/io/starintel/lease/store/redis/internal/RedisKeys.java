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
 * P{T}:lease:D       string: the active record in storage encoding v2 (StoredRecord; + SEP a once it has attached keys)
 * P{T}:fence:D       hash: counter (last issued token), hwm (fenced-write high-water mark); never deleted
 * P{T}:hist:D        list: ended records (v2 strings; v1 JSON entries from before an upgrade), newest first
 * P{T}:idem:H        string: request digest, result code, decision time, result record (v1: a hash)
 * P{T}:lid:L         string: D while lease L is active, D + state after it ended (the replay state)
 * P{T}:quarantine:D  string: DUMP of a corrupt record, for an operator
 * P{T}:idx:program   sorted set (score 0, member D): list by program (owner/target filters scan it)
 * P{T}:idx:expiry    sorted set (score expires_at ms, member D): the expiry queue
 * P{T}:expired       list: D + record of leases ended as expired outside the sweeper, drained by the sweeper
 * P{T}:audit         stream: audit events of the program
 * P{T}:kv:K          hash: an attached key (o = owning lease id + token, n = name, v = value), K = SHA-1 of the name
 * P{T}:att:L:N       hash: the attached keys of lease L with token N (K to name); deleted by every ending transition
 * P{T}:epoch         string: run id and replication id of the node whose data the program's state is (prelude.lua);
 *                    the last key of every call
 * </pre>
 * P is {@value LockIdentity#KEY_PREFIX}, T is {@link ProgramScope#hashTag()}, D is {@link LockIdentity#keyDigest()}.
 * Raw principals and targets never appear in key names: they are hashed.
 */
public final class RedisKeys {

	/** The name of a program's epoch key after its base ({@link #epoch()}). */
	public static final String EPOCH = "epoch";

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

	/** The base of the program whose epoch key ({@link #epoch()}) is given, or null for another key. */
	public static @Nullable String baseOfEpochKey(String key) {
		if (!key.startsWith(LockIdentity.KEY_PREFIX + "{") || !key.endsWith("}:" + EPOCH)) {
			return null;
		}
		return key.substring(0, key.length() - EPOCH.length());
	}

	/** The pattern (SCAN MATCH) of every program's epoch key. */
	public static String epochKeyPattern() {
		return LockIdentity.KEY_PREFIX + "{*}:" + EPOCH;
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

	/** The program's epoch: the identity of the node whose data the program's state is (prelude.lua). */
	public String epoch() {
		return this.base + EPOCH;
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
