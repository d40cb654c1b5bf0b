package io.starintel.lease.fence.checkpoint;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.starintel.lease.context.LeaseContext;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.store.redis.internal.RedisKeys;

/**
 * The keys and arguments of the lease function library's {@code checkpoint} and {@code checkpoint_read}
 * ({@code store/redis/fence_checkpoint.lua}, whose header lists them in this order): one named builder per
 * function, so nothing else indexes them by number.
 */
final class CheckpointArguments {

	private CheckpointArguments() {
	}

	/** {@code checkpoint}: keys lease:D, fence:D, checkpoint:D, checkpoint:D:req:R. */
	static byte[][] checkpointKeys(LockIdentity identity, String requestId) {
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		return bytes(keys.lease(digest), keys.fence(digest), RedisCheckpointStore.key(identity),
				RedisCheckpointStore.requestKey(identity, requestId));
	}

	/**
	 * {@code checkpoint}: deadline, base, digest, identity prefix, holder prefix, token, state, progress, execution
	 * id, trace id, lease id, request id, request digest, retention (ms).
	 */
	static byte[][] checkpointArgs(LeaseContext context, Instant deadline, CheckpointState state, String progress,
			String requestId, String requestDigest, long retentionMs) {
		LeaseHandle handle = context.handle();
		LockIdentity identity = handle.identity();
		String identityPrefix = StoredRecord.identityPrefix(identity);
		return bytes(Long.toString(deadline.toEpochMilli()), RedisKeys.of(identity).base(), identity.keyDigest(),
				identityPrefix, StoredRecord.holderPrefix(identityPrefix, handle), Long.toString(handle.fencingToken()),
				state.wireName(), progress, context.executionId(), context.traceId(), handle.leaseId(), requestId,
				requestDigest, Long.toString(retentionMs));
	}

	/** {@code checkpoint_read}: key checkpoint:D; no arguments. */
	static byte[][] readKeys(LockIdentity identity) {
		return bytes(RedisCheckpointStore.key(identity));
	}

	static byte[][] none() {
		return new byte[0][];
	}

	private static byte[][] bytes(String... values) {
		byte[][] out = new byte[values.length][];
		for (int i = 0; i < values.length; i++) {
			out[i] = values[i].getBytes(StandardCharsets.UTF_8);
		}
		return out;
	}

}
