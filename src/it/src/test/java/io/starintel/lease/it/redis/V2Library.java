package io.starintel.lease.it.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import io.starintel.lease.core.AcquireRequest;
import io.starintel.lease.core.LeaseHandle;
import io.starintel.lease.core.LeasePolicy;
import io.starintel.lease.core.LockIdentity;
import io.starintel.lease.core.Operation;
import io.starintel.lease.core.ReleaseRequest;
import io.starintel.lease.core.internal.IdempotencyKeys;
import io.starintel.lease.core.internal.Identifiers;
import io.starintel.lease.core.internal.StoredRecord;
import io.starintel.lease.store.redis.internal.RedisKeys;

/**
 * The storage v2 function library exactly as the previous release shipped it (fixture copies of its Lua files under
 * {@code src/it/src/test/resources/.../redis/v2}, taken from commit 8ffc9a2), loaded under its own name and called
 * with the previous release's argument lists: the writer of the fixtures the v2 → v3 upgrade tests start from, and a
 * v2 process running beside v3 processes during a rolling upgrade.
 */
final class V2Library implements AutoCloseable {

	static final String NAME = "starintel_lease_v2fixture";

	private final RedisClient client;

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisCommands<byte[], byte[]> commands;

	private final byte[] policy;

	V2Library(String host, int port, LeasePolicy policy) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.sync();
		this.commands.functionLoad(source(), true);
		char sep = StoredRecord.SEP;
		this.policy = bytes(policy.idempotencyRetention().toMillis() + "" + sep + policy.maximumDeadline().toMillis()
				+ sep + policy.clockSkewBound().toMillis() + sep + 300_000 + sep + policy.historyLength() + sep
				+ policy.historyRetention().toMillis());
	}

	private static String source() {
		StringBuilder code = new StringBuilder("#!lua name=" + NAME + "\nlocal LIBRARY = '" + NAME + "'\n");
		for (String file : List.of("prelude.lua", "lease.lua", "attach.lua", "sweep.lua", "fence_checkpoint.lua",
				"fence_consume.lua")) {
			code.append(read(file)).append('\n');
		}
		return code.toString();
	}

	/** A lease a v2 process acquired: its id and token, or the refusal code and reason. */
	record V2Result(String code, String reason, String leaseId, long token) {

		boolean acquired() {
			return "lease_acquired".equals(this.code);
		}

	}

	/** acquire of storage v2 (its lease ids are {@code lease_<random>}). */
	V2Result acquire(AcquireRequest r) {
		LockIdentity identity = r.identity();
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		String leaseId = Identifiers.generate("lease");
		char sep = StoredRecord.SEP;
		String timesTail = sep + Long.toString(r.ttlMs()) + sep + r.maximumLifetimeMs() + sep;
		String fixedRest = StoredRecord.fixedRest(leaseId, r.owner(), r.executionId(), r.jobId(), r.traceId(),
				r.requestId(), r.metadata());
		List<byte[]> keyList = List.of(bytes(keys.lease(digest)), bytes(keys.fence(digest)),
				bytes(keys.base() + "idem:" + IdempotencyKeys.hash(Operation.ACQUIRE.wireName(), identity.lockKey(),
						r.principalId(), r.requestId())),
				bytes(keys.leaseId(leaseId)), bytes(keys.programIndex()), bytes(keys.expiryQueue()));
		List<byte[]> args = List.of(number(r.deadlineAt().toEpochMilli()), bytes(digest), this.policy,
				bytes(r.digest()), bytes(StoredRecord.identityPrefix(identity)),
				number(Math.min(r.ttlMs(), r.maximumLifetimeMs())), bytes(timesTail), bytes(fixedRest),
				number(100_000));
		List<String> reply = call("acquire", keyList, args);
		if ("lease_acquired".equals(reply.get(0))) {
			return new V2Result(reply.get(0), "none", leaseId, Long.parseLong(reply.get(2)));
		}
		return new V2Result(reply.get(0), reply.get(1), "", -1);
	}

	/** release of storage v2. */
	String release(ReleaseRequest r) {
		LeaseHandle h = r.handle();
		LockIdentity identity = h.identity();
		RedisKeys keys = RedisKeys.of(identity);
		String digest = identity.keyDigest();
		List<byte[]> keyList = List.of(bytes(keys.lease(digest)), bytes(keys.history(digest)),
				bytes(keys.leaseId(h.leaseId())), bytes(keys.programIndex()), bytes(keys.expiryQueue()),
				bytes(keys.base() + "idem:" + IdempotencyKeys.hash(Operation.RELEASE.wireName(), identity.lockKey(),
						h.ownerPrincipalId(), r.requestId())));
		List<byte[]> args = List.of(number(r.deadlineAt().toEpochMilli()), bytes(digest), this.policy,
				bytes(r.digest()), bytes(StoredRecord.holderPrefix(StoredRecord.identityPrefix(identity), h)),
				number(h.fencingToken()), bytes(h.leaseId()));
		return call("release", keyList, args).get(0);
	}

	/** A deadline a few seconds ahead. */
	static Instant deadline() {
		return Instant.now().plus(Duration.ofSeconds(5));
	}

	private List<String> call(String function, List<byte[]> keys, List<byte[]> args) {
		List<Object> raw = this.commands.fcall(NAME + "_" + function, ScriptOutputType.MULTI,
				keys.toArray(new byte[0][]), args.toArray(new byte[0][]));
		List<String> out = new ArrayList<>();
		for (Object value : raw) {
			out.add((value instanceof byte[] b) ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value));
		}
		return out;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] number(long value) {
		return bytes(Long.toString(value));
	}

	private static String read(String name) {
		try (InputStream in = V2Library.class.getResourceAsStream("/io/starintel/lease/it/redis/v2/" + name)) {
			if (in == null) {
				throw new IllegalStateException("missing v2 fixture file " + name);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		this.commands.dispatch(io.lettuce.core.protocol.CommandType.FUNCTION,
				new io.lettuce.core.output.StatusOutput<>(ByteArrayCodec.INSTANCE),
				new io.lettuce.core.protocol.CommandArgs<>(ByteArrayCodec.INSTANCE).add("DELETE").add(NAME));
		this.connection.close();
		this.client.shutdown();
	}

}
