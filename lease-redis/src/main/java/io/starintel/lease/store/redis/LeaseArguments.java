package io.starintel.lease.store.redis;

import java.time.Instant;
import java.util.List;

import io.starintel.lease.audit.internal.AdminDecision;
import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.internal.LeaseLibrary;

import static io.starintel.lease.store.redis.ArgumentBytes.holderPrefix;
import static io.starintel.lease.store.redis.ArgumentBytes.joined;
import static io.starintel.lease.store.redis.ArgumentBytes.millis;
import static io.starintel.lease.store.redis.ArgumentBytes.number;
import static io.starintel.lease.store.redis.IdentityKeys.bytes;

/**
 * The keys and arguments of the single-lease functions of {@code lease.lua} (acquire, renew, renew_batch, release,
 * administer, authorize, inspect, inspect_by_lease_id, resolve), one named builder per function, in the order its
 * header documents: nothing outside this class knows an argument's position. The attached-key and program-wide
 * functions have theirs in {@link AttachArguments} and {@link ProgramArguments}.
 */
final class LeaseArguments {

	/** Renew's TTL argument when the request keeps the lease's TTL. */
	private static final byte[] KEEP_TTL = new byte[0];

	private static final byte[] EMPTY = new byte[0];

	private final CallSettings settings;

	private final ActiveLeaseLimits limits;

	/**
	 * @param settings the arguments every call shares (policy, recovery, audit bound)
	 * @param limits the policy's active-lease limits (acquire's limit argument)
	 */
	LeaseArguments(CallSettings settings, ActiveLeaseLimits limits) {
		this.settings = settings;
		this.limits = limits;
	}

	/** The idempotency key of an acquire: its hash is part of the lease id ({@link IdentityKeys#newLeaseId}). */
	static byte[] acquireKey(IdentityKeys t, AcquireRequest r) {
		return t.idempotency(Operation.ACQUIRE, r.principalId(), r.requestId());
	}

	FunctionCall acquire(IdentityKeys t, AcquireRequest r, byte[] idempotencyKey, String leaseId) {
		byte[][] keys = { t.identityKey, idempotencyKey, t.programIndexKey, t.expiryQueueKey, t.auditKey,
				t.v2AcquireIdempotency(r.principalId(), r.requestId()) };
		byte[][] args = { millis(r.deadlineAt()), t.digestBytes, this.settings.policy(), bytes(r.digest()),
				t.identityPrefixBytes, number(effectiveTtl(r)), timesTail(r),
				joined(leaseId, r.owner().principalId(), r.owner().serviceInstanceId(), r.owner().clientId(),
						r.owner().credentialId(), r.executionId(), r.jobId(), r.traceId(), r.requestId(),
						r.metadata().json()),
				limit(r), this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.ACQUIRE, keys, args);
	}

	private byte[] limit(AcquireRequest r) {
		long limit = this.limits.limitFor(r.identity().scope());
		return (limit > 0) ? number(limit) : EMPTY;
	}

	/** The TTL a fresh acquire gets: the requested TTL, capped by the maximum lifetime (expires = decided + this). */
	static long effectiveTtl(AcquireRequest r) {
		return Math.min(r.ttlMs(), r.maximumLifetimeMs());
	}

	/** {@code SEP ttl SEP maximum_lifetime}: the record's last two times. */
	private static byte[] timesTail(AcquireRequest r) {
		long ttl = r.ttlMs();
		long lifetime = r.maximumLifetimeMs();
		int ttlDigits = ArgumentBytes.digits(ttl);
		int lifetimeDigits = ArgumentBytes.digits(lifetime);
		byte[] out = new byte[ttlDigits + lifetimeDigits + 2];
		out[0] = (byte) StoredRecord.SEP;
		ArgumentBytes.writeDigits(out, 1, ttlDigits, ttl);
		out[ttlDigits + 1] = (byte) StoredRecord.SEP;
		ArgumentBytes.writeDigits(out, ttlDigits + 2, lifetimeDigits, lifetime);
		return out;
	}

	FunctionCall renew(IdentityKeys t, RenewRequest r) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.identityKey, t.idempotency(Operation.RENEW, h.ownerPrincipalId(), r.requestId()),
				t.expiryQueueKey, t.auditKey };
		byte[][] args = { millis(r.deadlineAt()), t.digestBytes, this.settings.policy(), bytes(r.digest()),
				holderPrefix(t, h), number(h.fencingToken()), bytes(h.leaseId()), ttl(r), this.settings.recovery(),
				this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.RENEW, keys, args);
	}

	FunctionCall release(IdentityKeys t, ReleaseRequest r) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.identityKey, t.idempotency(Operation.RELEASE, h.ownerPrincipalId(), r.requestId()),
				t.expiryQueueKey, t.auditKey };
		byte[][] args = { millis(r.deadlineAt()), t.digestBytes, this.settings.policy(), bytes(r.digest()),
				holderPrefix(t, h), number(h.fencingToken()), bytes(h.leaseId()), this.settings.recovery(),
				this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.RELEASE, keys, args);
	}

	/** A renewal's new TTL argument: the milliseconds, or empty to keep the lease's TTL. */
	private static byte[] ttl(RenewRequest r) {
		Long ttl = r.ttlMs();
		return (ttl != null) ? number(ttl) : KEEP_TTL;
	}

	/**
	 * One call renewing leases of one program (one slot). The list must not be empty and all identities must share
	 * the program.
	 */
	FunctionCall renewBatch(List<IdentityKeys> targets, List<RenewRequest> requests) {
		int n = requests.size();
		byte[][] keys = new byte[2 + 2 * n][];
		byte[][] args = new byte[5 + n * 6][];
		IdentityKeys first = targets.get(0);
		keys[0] = first.expiryQueueKey;
		keys[1] = first.auditKey;
		args[0] = first.base;
		args[1] = this.settings.policy();
		args[2] = number(n);
		args[3] = this.settings.recovery();
		args[4] = this.settings.auditLength();
		for (int i = 0; i < n; i++) {
			IdentityKeys t = targets.get(i);
			RenewRequest r = requests.get(i);
			LeaseHandle h = r.handle();
			keys[2 + 2 * i] = t.identityKey;
			keys[3 + 2 * i] = t.idempotency(Operation.RENEW, h.ownerPrincipalId(), r.requestId());
			int a = 5 + i * 6;
			args[a] = millis(r.deadlineAt());
			args[a + 1] = t.digestBytes;
			args[a + 2] = bytes(r.digest());
			args[a + 3] = holderPrefix(t, h);
			args[a + 4] = number(h.fencingToken());
			args[a + 5] = ttl(r);
		}
		return new FunctionCall(LeaseLibrary.Function.RENEW_BATCH, keys, args);
	}

	/**
	 * A force-release or revoke; {@code decision} gives its audit entry the correlation id, decision id and latency
	 * origin of the decision's synchronous event.
	 */
	FunctionCall administer(IdentityKeys t, AdminRequest r, AdminDecision decision) {
		byte[][] keys = { t.identityKey, t.idempotency(r.operation(), r.principalId(), r.requestId()), t.auditKey,
				t.expiryQueueKey };
		byte[][] args = { millis(r.deadlineAt()), t.digestBytes, this.settings.policy(), bytes(r.digest()),
				t.identityPrefixBytes, bytes(r.operation().wireName()), bytes(r.expectedLeaseId()),
				number(r.expectedFencingToken()), bytes(r.adminPrincipalId()), bytes(r.adminCredentialId()),
				bytes(r.reason()), bytes(r.requestId()), this.settings.auditLength(), this.settings.recovery(),
				correlation(decision), bytes(decision.decisionId()), number(decision.startedAtMillis()) };
		return new FunctionCall(LeaseLibrary.Function.ADMINISTER, keys, args);
	}

	/** The decision's correlation id, or empty without one (the script then leaves the field out). */
	static byte[] correlation(AdminDecision decision) {
		String id = decision.correlationId();
		return (id != null) ? bytes(id) : EMPTY;
	}

	FunctionCall authorize(IdentityKeys t, CommitRequest r) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.identityKey, t.auditKey };
		byte[][] args = { millis(r.deadlineAt()), t.digestBytes, this.settings.policy(), holderPrefix(t, h),
				number(h.fencingToken()), this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.AUTHORIZE, keys, args);
	}

	FunctionCall inspect(IdentityKeys t, Instant deadlineAt) {
		byte[][] keys = { t.identityKey, t.auditKey };
		byte[][] args = { millis(deadlineAt), t.digestBytes, this.settings.policy(), t.identityPrefixBytes,
				this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.INSPECT, keys, args);
	}

	FunctionCall inspectByLeaseId(ProgramScope scope, String leaseId, Instant deadlineAt) {
		RedisKeys keys = new RedisKeys(scope);
		byte[][] k = { bytes(keys.leaseResolution(leaseId)), bytes(keys.audit()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), this.settings.policy(), bytes(leaseId),
				this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.INSPECT_BY_LEASE_ID, k, args);
	}

	FunctionCall resolve(IdentityKeys t, Operation operation, String principalId, String requestId, Instant deadlineAt) {
		byte[][] keys = { t.identityKey, t.idempotency(operation, principalId, requestId), t.auditKey };
		byte[][] args = { millis(deadlineAt), t.digestBytes, this.settings.policy(), t.identityPrefixBytes,
				this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.RESOLVE, keys, args);
	}

}
