package io.starintel.lease.fence.checkpoint;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.store.redis.FenceCalls;

/**
 * The keys and arguments of the lease function library's {@code checkpoint} and {@code checkpoint_read}
 * ({@code store/redis/fence.lua}, whose header lists them in this order): one named builder per function, so nothing
 * else indexes them by number.
 */
final class CheckpointArguments {

	private CheckpointArguments() {
	}

	/** {@code checkpoint}: keys l:D, checkpoint:D, checkpoint:D:req:R, audit. */
	static byte[][] checkpointKeys(FenceCalls calls, LockIdentity identity, String requestId) {
		return bytes(FenceCalls.identityKey(identity), RedisCheckpointStore.key(identity),
				RedisCheckpointStore.requestKey(identity, requestId), FenceCalls.auditKey(identity.scope()));
	}

	/**
	 * {@code checkpoint}: deadline, base, digest, identity prefix, holder prefix, token, state, progress, execution
	 * id, trace id, lease id, request id, request digest, retention (ms), recovery, audit length, policy.
	 */
	static byte[][] checkpointArgs(FenceCalls calls, LeaseContext context, Instant deadline, CheckpointState state,
			String progress, String requestId, String requestDigest, long retentionMs) {
		LeaseHandle handle = context.handle();
		LockIdentity identity = handle.identity();
		String identityPrefix = StoredRecord.identityPrefix(identity);
		byte[][] text = bytes(Long.toString(deadline.toEpochMilli()), FenceCalls.base(identity.scope()), identity.keyDigest(),
				identityPrefix, StoredRecord.holderPrefix(identityPrefix, handle), Long.toString(handle.fencingToken()),
				state.wireName(), progress, context.executionId(), context.traceId(), handle.leaseId(), requestId,
				requestDigest, Long.toString(retentionMs));
		byte[][] args = java.util.Arrays.copyOf(text, text.length + 3);
		args[text.length] = calls.recoveryArgument();
		args[text.length + 1] = calls.auditLengthArgument();
		args[text.length + 2] = calls.policyArgument();
		return args;
	}

	/** {@code checkpoint_read}: key checkpoint:D. */
	static byte[][] readKeys(LockIdentity identity) {
		return bytes(RedisCheckpointStore.key(identity));
	}

	/** {@code checkpoint_read}: the deadline. */
	static byte[][] readArgs(Instant deadline) {
		return bytes(Long.toString(deadline.toEpochMilli()));
	}

	private static byte[][] bytes(String... values) {
		byte[][] out = new byte[values.length][];
		for (int i = 0; i < values.length; i++) {
			out[i] = values[i].getBytes(StandardCharsets.UTF_8);
		}
		return out;
	}

}
