package io.starintel.lease.store.redis;

import io.starintel.lease.core.AttachDeleteRequest;
import io.starintel.lease.core.AttachGetRequest;
import io.starintel.lease.core.AttachListRequest;
import io.starintel.lease.core.AttachPutRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.Operation;
import io.starintel.lease.store.redis.internal.RedisKeys;
import io.starintel.lease.store.redis.internal.LeaseLibrary;

import static io.starintel.lease.store.redis.ArgumentBytes.holderPrefix;
import static io.starintel.lease.store.redis.ArgumentBytes.millis;
import static io.starintel.lease.store.redis.ArgumentBytes.number;
import static io.starintel.lease.store.redis.IdentityKeys.bytes;

/**
 * The keys and arguments of the attached-key functions, one named builder per function, in the order their headers
 * in {@code attach.lua} document: nothing outside this class knows an argument's position.
 */
final class AttachArguments {

	private final CallSettings settings;

	private final int maximumKeys;

	/**
	 * @param settings the arguments every call shares (policy, recovery, audit bound)
	 * @param maximumKeys the policy's maximum of attached keys per lease
	 */
	AttachArguments(CallSettings settings, int maximumKeys) {
		this.settings = settings;
		this.maximumKeys = maximumKeys;
	}

	FunctionCall put(IdentityKeys t, AttachPutRequest r) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.identityKey, t.idempotency(Operation.ATTACH_PUT, h.ownerPrincipalId(), r.requestId()),
				t.auditKey };
		byte[][] args = { millis(r.deadlineAt()), t.digestBytes, this.settings.policy(), bytes(r.digest()),
				holderPrefix(t, h), number(h.fencingToken()), bytes(h.leaseId()),
				bytes(RedisKeys.attachedKeyHash(r.name())), bytes(r.name()), bytes(r.value()),
				number(this.maximumKeys), this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.ATTACH_PUT, keys, args);
	}

	FunctionCall delete(IdentityKeys t, AttachDeleteRequest r) {
		LeaseHandle h = r.handle();
		byte[][] keys = { t.identityKey, t.idempotency(Operation.ATTACH_DELETE, h.ownerPrincipalId(), r.requestId()),
				t.auditKey };
		byte[][] args = { millis(r.deadlineAt()), t.digestBytes, this.settings.policy(), bytes(r.digest()),
				holderPrefix(t, h), number(h.fencingToken()), bytes(h.leaseId()),
				bytes(RedisKeys.attachedKeyHash(r.name())), this.settings.recovery(), this.settings.auditLength() };
		return new FunctionCall(LeaseLibrary.Function.ATTACH_DELETE, keys, args);
	}

	FunctionCall get(AttachGetRequest r) {
		RedisKeys keys = new RedisKeys(r.scope());
		byte[][] k = { bytes(keys.attachedKey(r.name())) };
		byte[][] args = { millis(r.deadlineAt()), bytes(keys.base()), this.settings.policy(),
				this.settings.recovery() };
		return new FunctionCall(LeaseLibrary.Function.ATTACH_GET, k, args);
	}

	FunctionCall list(AttachListRequest r) {
		RedisKeys keys = new RedisKeys(r.scope());
		byte[][] k = { bytes(keys.leaseResolution(r.leaseId())) };
		byte[][] args = { millis(r.deadlineAt()), bytes(keys.base()), this.settings.policy(), bytes(r.leaseId()),
				this.settings.recovery() };
		return new FunctionCall(LeaseLibrary.Function.ATTACH_LIST, k, args);
	}

}
