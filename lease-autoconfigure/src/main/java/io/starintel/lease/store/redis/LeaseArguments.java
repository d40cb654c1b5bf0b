package io.starintel.lease.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.ActiveLeaseLimits;
import io.starintel.lease.core.AdminRequest;
import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.CommitRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.ListFilter;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.RenewRequest;
import io.starintel.lease.core.internal.StoredRecord;

import static io.starintel.lease.store.redis.IdentityKeys.bytes;

/**
 * The keys and arguments of every library function, one named builder per function, in the order its header in
 * {@code lease.lua} documents: nothing outside this class knows an argument's position.
 */
final class LeaseArguments {

	/** One function call: the function, its keys and its arguments. */
	record Call(LeaseLibrary.Function function, byte[][] keys, byte[][] args) {
	}

	/** Renew's TTL argument when the request keeps the lease's TTL. */
	private static final byte[] KEEP_TTL = new byte[0];

	/** The policy argument of every function, built once per store. */
	private final byte[] policy;

	private final Duration maximumDeadline;

	private final ActiveLeaseLimits limits;

	LeaseArguments(LeasePolicy policy, Duration physicalGrace) {
		char sep = StoredRecord.SEP;
		this.policy = bytes(policy.idempotencyRetention().toMillis() + "" + sep + policy.maximumDeadline().toMillis()
				+ sep + policy.clockSkewBound().toMillis() + sep + physicalGrace.toMillis() + sep
				+ policy.historyLength() + sep + policy.historyRetention().toMillis());
		this.maximumDeadline = policy.maximumDeadline();
		this.limits = policy.activeLeaseLimits();
	}

	Call acquire(IdentityKeys t, AcquireRequest r, String leaseId) {
		byte[][] keys = { t.leaseKey, t.fenceKey,
				t.idempotency(Operation.ACQUIRE, r.principalId(), r.requestId()) };
		byte[][] args = { millis(r.deadlineAt()), t.base, t.digestBytes, this.policy, bytes(r.digest()),
				t.identityPrefixBytes, bytes(leaseId), number(r.ttlMs()), number(r.maximumLifetimeMs()),
				joined(leaseId, r.owner().principalId(), r.owner().serviceInstanceId(), r.owner().clientId(),
						r.owner().credentialId(), r.executionId(), r.jobId(), r.traceId(), r.requestId(),
						r.metadata().json()),
				number(this.limits.limitFor(r.identity().scope())) };
		return new Call(LeaseLibrary.Function.ACQUIRE, keys, args);
	}

	Call renew(IdentityKeys t, RenewRequest r) {
		return holder(LeaseLibrary.Function.RENEW, Operation.RENEW, t, r.handle(), r.requestId(), r.digest(),
				r.deadlineAt(), ttl(r));
	}

	Call release(IdentityKeys t, ReleaseRequest r) {
		return holder(LeaseLibrary.Function.RELEASE, Operation.RELEASE, t, r.handle(), r.requestId(), r.digest(),
				r.deadlineAt(), null);
	}

	/** The holder arguments, and renew's new TTL ({@code ''}: keep the lease's) as the ninth when given. */
	private Call holder(LeaseLibrary.Function function, Operation operation, IdentityKeys t, LeaseHandle h,
			String requestId, String digest, Instant deadlineAt, byte @Nullable [] ttl) {
		byte[][] keys = { t.leaseKey, t.idempotency(operation, h.ownerPrincipalId(), requestId) };
		byte[][] args = (ttl != null) ? new byte[9][] : new byte[8][];
		args[0] = millis(deadlineAt);
		args[1] = t.base;
		args[2] = t.digestBytes;
		args[3] = this.policy;
		args[4] = bytes(digest);
		args[5] = holderPrefix(t, h);
		args[6] = number(h.fencingToken());
		args[7] = bytes(h.leaseId());
		if (ttl != null) {
			args[8] = ttl;
		}
		return new Call(function, keys, args);
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
	Call renewBatch(List<IdentityKeys> targets, List<RenewRequest> requests) {
		int n = requests.size();
		byte[][] keys = new byte[n][];
		byte[][] args = new byte[3 + n * 7][];
		args[0] = targets.get(0).base;
		args[1] = this.policy;
		args[2] = number(n);
		for (int i = 0; i < n; i++) {
			IdentityKeys t = targets.get(i);
			RenewRequest r = requests.get(i);
			LeaseHandle h = r.handle();
			keys[i] = t.idempotency(Operation.RENEW, h.ownerPrincipalId(), r.requestId());
			int a = 3 + i * 7;
			args[a] = millis(r.deadlineAt());
			args[a + 1] = t.digestBytes;
			args[a + 2] = bytes(r.digest());
			args[a + 3] = holderPrefix(t, h);
			args[a + 4] = number(h.fencingToken());
			args[a + 5] = bytes(h.leaseId());
			args[a + 6] = ttl(r);
		}
		return new Call(LeaseLibrary.Function.RENEW_BATCH, keys, args);
	}

	Call administer(IdentityKeys t, AdminRequest r, int auditLength) {
		byte[][] keys = { t.leaseKey, t.idempotency(r.operation(), r.principalId(), r.requestId()),
				bytes(t.keys.audit()) };
		byte[][] args = { millis(r.deadlineAt()), t.base, t.digestBytes, this.policy, bytes(r.digest()),
				t.identityPrefixBytes, bytes(r.operation().wireName()), bytes(r.expectedLeaseId()),
				number(r.expectedFencingToken()), bytes(r.adminPrincipalId()), bytes(r.adminCredentialId()),
				bytes(r.reason()), bytes(r.requestId()), number(auditLength) };
		return new Call(LeaseLibrary.Function.ADMINISTER, keys, args);
	}

	Call authorize(IdentityKeys t, CommitRequest r) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.leaseKey, t.fenceKey };
		byte[][] args = { millis(r.deadlineAt()), t.base, t.digestBytes, this.policy,
				holderPrefix(t, h), number(h.fencingToken()) };
		return new Call(LeaseLibrary.Function.AUTHORIZE, keys, args);
	}

	Call inspect(IdentityKeys t, Instant deadlineAt) {
		byte[][] keys = { t.leaseKey };
		byte[][] args = { millis(deadlineAt), t.base, t.digestBytes, this.policy, t.identityPrefixBytes };
		return new Call(LeaseLibrary.Function.INSPECT, keys, args);
	}

	Call inspectByLeaseId(ProgramScope scope, String leaseId, Instant deadlineAt) {
		RedisKeys keys = new RedisKeys(scope);
		byte[][] k = { bytes(keys.base() + "lid:" + leaseId) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), this.policy, bytes(leaseId) };
		return new Call(LeaseLibrary.Function.INSPECT_BY_LEASE_ID, k, args);
	}

	Call resolve(IdentityKeys t, Operation operation, String principalId, String requestId, Instant deadlineAt) {
		byte[][] keys = { t.leaseKey, t.idempotency(operation, principalId, requestId) };
		byte[][] args = { millis(deadlineAt), t.base, t.digestBytes, this.policy, t.identityPrefixBytes };
		return new Call(LeaseLibrary.Function.RESOLVE, keys, args);
	}

	Call list(ListFilter filter, String after, int pageSize, Instant deadlineAt) {
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
		return new Call(LeaseLibrary.Function.LIST, k, args);
	}

	Call recover(ProgramScope scope, int batch, String adminPrincipalId, String adminCredentialId, String reason,
			String requestId, int auditLength, Instant deadlineAt) {
		RedisKeys keys = new RedisKeys(scope);
		byte[][] k = { bytes(keys.programIndex()), bytes(keys.audit()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), number(batch), bytes(adminPrincipalId),
				bytes(adminCredentialId), bytes(reason), bytes(requestId), this.policy, number(auditLength) };
		return new Call(LeaseLibrary.Function.RECOVER, k, args);
	}

	Call attachPut(IdentityKeys t, AttachPutRequest r, int maximumKeys) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.leaseKey, t.idempotency(Operation.ATTACH_PUT, h.ownerPrincipalId(), r.requestId()) };
		byte[][] args = { millis(r.deadlineAt()), t.base, t.digestBytes, this.policy, bytes(r.digest()),
				bytes(StoredRecord.holderPrefix(t.identityPrefix, h)), number(h.fencingToken()), bytes(h.leaseId()),
				bytes(RedisKeys.attachedKeyHash(r.name())), bytes(r.name()), bytes(r.value()), number(maximumKeys) };
		return new Call(LeaseLibrary.Function.ATTACH_PUT, keys, args);
	}

	Call attachDelete(IdentityKeys t, AttachDeleteRequest r) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.leaseKey, t.idempotency(Operation.ATTACH_DELETE, h.ownerPrincipalId(), r.requestId()) };
		byte[][] args = { millis(r.deadlineAt()), t.base, t.digestBytes, this.policy, bytes(r.digest()),
				bytes(StoredRecord.holderPrefix(t.identityPrefix, h)), number(h.fencingToken()), bytes(h.leaseId()),
				bytes(RedisKeys.attachedKeyHash(r.name())) };
		return new Call(LeaseLibrary.Function.ATTACH_DELETE, keys, args);
	}

	Call attachGet(AttachGetRequest r) {
		RedisKeys keys = new RedisKeys(r.scope());
		byte[][] k = { bytes(keys.attachedKey(r.name())) };
		byte[][] args = { millis(r.deadlineAt()), bytes(keys.base()), this.policy };
		return new Call(LeaseLibrary.Function.ATTACH_GET, k, args);
	}

	Call attachList(AttachListRequest r) {
		RedisKeys keys = new RedisKeys(r.scope());
		byte[][] k = { bytes(keys.base() + "lid:" + r.leaseId()) };
		byte[][] args = { millis(r.deadlineAt()), bytes(keys.base()), this.policy, bytes(r.leaseId()) };
		return new Call(LeaseLibrary.Function.ATTACH_LIST, k, args);
	}

	Call sweep(ProgramScope scope, int limit, Instant deadlineAt) {
		RedisKeys keys = new RedisKeys(scope);
		byte[][] k = { bytes(keys.expiryQueue()), bytes(keys.programIndex()) };
		byte[][] args = { millis(deadlineAt), bytes(keys.base()), this.policy, number(limit) };
		return new Call(LeaseLibrary.Function.SWEEP, k, args);
	}

	/** The policy's maximum deadline (checked again inside the functions). */
	Duration maximumDeadline() {
		return this.maximumDeadline;
	}

	private static byte[] millis(Instant instant) {
		return number(instant.toEpochMilli());
	}

	/**
	 * {@link StoredRecord#holderPrefix} as UTF-8 bytes, from the identity's cached prefix bytes (the identifiers
	 * are ASCII by their rule, so each character is one byte).
	 */
	private static byte[] holderPrefix(IdentityKeys t, LeaseHandle h) {
		String a = h.leaseId();
		String b = h.ownerPrincipalId();
		String c = h.serviceInstanceId();
		byte[] prefix = t.identityPrefixBytes;
		byte[] out = java.util.Arrays.copyOf(prefix, prefix.length + a.length() + b.length() + c.length() + 3);
		int at = prefix.length;
		at = ascii(out, at, a);
		out[at++] = (byte) StoredRecord.SEP;
		at = ascii(out, at, b);
		out[at++] = (byte) StoredRecord.SEP;
		at = ascii(out, at, c);
		out[at] = (byte) StoredRecord.SEP;
		return out;
	}

	/**
	 * The parts joined by {@link StoredRecord#SEP} as UTF-8, in one exact-size array when they are ASCII: for the
	 * fixed-part rest this is {@link StoredRecord#fixedRest} (same order), which the reference encoder checks.
	 */
	private static byte[] joined(String... parts) {
		int length = parts.length - 1;
		for (String part : parts) {
			for (int i = 0; i < part.length(); i++) {
				if (part.charAt(i) >= 0x80) {
					return bytes(String.join(String.valueOf(StoredRecord.SEP), parts));
				}
			}
			length += part.length();
		}
		byte[] out = new byte[length];
		int at = 0;
		for (int p = 0; p < parts.length; p++) {
			if (p > 0) {
				out[at++] = (byte) StoredRecord.SEP;
			}
			at = ascii(out, at, parts[p]);
		}
		return out;
	}

	private static int ascii(byte[] out, int at, String text) {
		for (int i = 0; i < text.length(); i++) {
			out[at++] = (byte) text.charAt(i);
		}
		return at;
	}

	/** The decimal digits of a number as ASCII bytes, written directly (no intermediate string). */
	static byte[] number(long value) {
		if (value < 0) {
			return bytes(Long.toString(value));
		}
		int digits = 1;
		for (long v = value / 10; v > 0; v /= 10) {
			digits++;
		}
		byte[] out = new byte[digits];
		for (int i = digits - 1; i >= 0; i--) {
			out[i] = (byte) ('0' + value % 10);
			value /= 10;
		}
		return out;
	}

}
