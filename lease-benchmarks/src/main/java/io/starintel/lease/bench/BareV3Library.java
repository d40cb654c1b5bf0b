package io.starintel.lease.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The contract-complete bare script ({@code bare-v3}): what one acquire+release cycle of the contract costs on the
 * storage v3 key layout, written by hand over Lettuce with minimal Lua and no product Java. One {@code EVALSHA} per
 * operation; per cycle it reads and writes the same keys with the same commands as the store's functions
 * ({@code lease.lua}, {@code prelude.lua}) on their common path:
 *
 * <pre>
 * acquire  EVALSHA, TIME, HMGET l:D (m f c h e p a n), ZCARD idx:expiry (the active-lease limit),
 *          SET idem:H NX GET PX (the idempotency claim, whose value is the lease's resolution and state),
 *          HSET l:D (m f c a e, p on the identity's first acquire), ZADD idx:program (first acquire only),
 *          ZADD idx:expiry                                                       7 commands
 * release  EVALSHA, TIME, HMGET l:D, SET idem:H' NX GET PX (claim), HSET l:D (m f a '' + history slot t&lt;n&gt;, n,
 *          e), SETRANGE idem:H 1 'r' (the acquire's result: the lease's terminal state), ZREM idx:expiry   7 commands
 * refused  EVALSHA, TIME, HMGET l:D, GET idem:H (a retry of a granted acquire replays it)  4 commands
 * </pre>
 *
 * <p>The rules kept in Lua, each the contract's: backend time, the deadline (late and too far ahead), exact-holder
 * release (identity, lease id, owner, instance, token), an active lease past its expiry ended as expired before any
 * decision, the fencing-token rule (max(counter + 1, backend ms × 1024), refused when the counter is ahead of backend
 * time by more than the clock-skew bound or at 2^53 − 1), the counter never deleted, the idempotency claim of each
 * mutation with its result for the retention (25 h), the active-lease limit, the program index written once per
 * identity, the exact expiry queue, the bounded history ring, and the epoch stamp compared and written on every
 * change. Simplifications, none of them in the cycle's commands: the node's stamp is read by the client when it
 * connects and passed as an argument (the store's function library keeps it in its Lua state and re-reads it from
 * {@code INFO} when a stamp differs), a foreign stamp is refused ({@code recovery_required}) instead of recovered,
 * v2 data is not read, attached keys and the expired outbox are left out (a lease without attached keys costs the
 * store nothing for them), and the ids' random parts come from {@link ThreadLocalRandom}.
 *
 * <p>Key names, record layout and argument sizes are the store's (base {@code starintel:target-lease:v1:{T}:},
 * 43-character identity digest, 40-hex idempotency hash, lease ids {@code lease_H_random}), so the Redis CPU
 * compares. {@code bare-v3-wait} sends {@code WAIT 1} behind each script ({@link ReplicaWait}) on each thread's own
 * connection, as the store waits for its replica.
 *
 * <p>The {@link Variant prototypes} ({@code bare-v3-no-claims}, {@code -no-indexes}, {@code -no-history},
 * {@code -lock-only}, {@code -compact}) price single rules and the layout's string lengths beside it in one run: each
 * is this script with exact lines replaced ({@link #derive}); all but {@code bare-v3-compact} leave a contract rule
 * out, so none of them is a store anyone should run.
 */
final class BareV3Library implements LockLibrary {

	/** What a library of this class runs: the contract-complete cycle, or a prototype that prices a rule. */
	enum Variant {

		/** {@code bare-v3}: every rule of the contract, the store's layout. */
		CONTRACT("bare-v3", true, true, true, false),

		/**
		 * {@code bare-v3-no-claims}: no idempotency result for the acquire and the release (no {@code SET NX GET}, no
		 * {@code SETRANGE} of the acquire's result): a retry would repeat its mutation, and a lease id would no longer
		 * resolve after its lease ended. Leaves out "the first attempt atomically stores its typed result".
		 */
		NO_CLAIMS("bare-v3-no-claims", false, true, true, false),

		/**
		 * {@code bare-v3-no-indexes}: no active-lease limit ({@code ZCARD}), no expiry queue ({@code ZADD}/{@code ZREM}),
		 * no program index. Leaves out the active-lease limit, the sweeper's exact queue and the listing by program.
		 */
		NO_INDEXES("bare-v3-no-indexes", true, false, true, false),

		/** {@code bare-v3-no-history}: a release writes no terminal entry into the history ring. */
		NO_HISTORY("bare-v3-no-history", true, true, false, false),

		/**
		 * {@code bare-v3-lock-only}: the three above left out; what remains is backend time, the deadline rule, the
		 * exact holder, the lease found expired, the token rule, the counter and the epoch stamp.
		 */
		LOCK_ONLY("bare-v3-lock-only", false, false, false, false),

		/**
		 * {@code bare-v3-compact}: every rule, on a layout with shorter strings: key names under {@code tl:} with a
		 * 22-character identity digest and a 27-character request hash; idempotency results without the record (the
		 * acquire's: request digest, time, token, expiry, lease id; the release's: request digest, time); the holder
		 * compared by a 22-character digest {@code h} written by the acquire, so the release reads no fixed part; the
		 * release replies without the record (the caller holds it). The expiry path of an active lease found expired
		 * is not adapted (a distinct cycle never takes it).
		 */
		COMPACT("bare-v3-compact", true, true, true, true);

		final String library;

		final boolean claims;

		final boolean indexes;

		final boolean history;

		final boolean compact;

		Variant(String library, boolean claims, boolean indexes, boolean history, boolean compact) {
			this.library = library;
			this.claims = claims;
			this.indexes = indexes;
			this.history = history;
			this.compact = compact;
		}

		static Variant of(String library) {
			for (Variant variant : values()) {
				if (variant.library.equals(library)) {
					return variant;
				}
			}
			throw new IllegalArgumentException("unknown library " + library);
		}

		/** The acquire script of this variant. */
		String acquire() {
			List<String> pairs = new ArrayList<>();
			if (!this.claims) {
				pairs.addAll(List.of(
						"local stored = redis.call('SET', KEYS[2], '3a' .. SEP .. ARGV[3] .. SEP .. 'lease_acquired' .. SEP .. now_text",
						"local stored = false",
						"  .. SEP .. ARGV[2] .. SEP .. '2' .. SEP .. m .. SEP .. f, 'NX', 'GET', 'PX', ARGV[10])", ""));
			}
			else if (this.compact) {
				pairs.addAll(List.of(
						"local stored = redis.call('SET', KEYS[2], '3a' .. SEP .. ARGV[3] .. SEP .. 'lease_acquired' .. SEP .. now_text",
						"local stored = redis.call('SET', KEYS[2], '3a' .. SEP .. ARGV[3] .. SEP .. now_text .. SEP .. token_text",
						"  .. SEP .. ARGV[2] .. SEP .. '2' .. SEP .. m .. SEP .. f, 'NX', 'GET', 'PX', ARGV[10])",
						"  .. SEP .. expires_text .. SEP .. ARGV[14], 'NX', 'GET', 'PX', ARGV[10])"));
			}
			if (!this.indexes) {
				pairs.addAll(List.of("  redis.call('ZADD', KEYS[3], '0', ARGV[2])", "",
						"redis.call('ZADD', KEYS[4], expires_text, ARGV[2])", ""));
			}
			if (this.compact) {
				pairs.addAll(List.of(
						"  redis.call('HSET', KEYS[1], 'm', m, 'f', f, 'c', token_text, 'a', '', 'e', ARGV[9])",
						"  redis.call('HSET', KEYS[1], 'm', m, 'f', f, 'c', token_text, 'a', '', 'e', ARGV[9], 'h', ARGV[15])",
						"  redis.call('HSET', KEYS[1], 'm', m, 'f', f, 'c', token_text, 'a', '', 'e', ARGV[9], 'p', '1')",
						"  redis.call('HSET', KEYS[1], 'm', m, 'f', f, 'c', token_text, 'a', '', 'e', ARGV[9], 'p', '1', 'h', ARGV[15])"));
			}
			return derive(ACQUIRE, pairs);
		}

		/** The release script of this variant. */
		String release() {
			List<String> pairs = new ArrayList<>();
			if (!this.claims) {
				pairs.addAll(List.of(
						"local stored = redis.call('SET', KEYS[2], '3-' .. SEP .. ARGV[3] .. SEP .. 'lease_released' .. SEP .. now_text",
						"local stored = false", "  .. SEP .. ARGV[2] .. SEP .. record, 'NX', 'GET', 'PX', ARGV[8])", "",
						"redis.call('SETRANGE', KEYS[4], 1, 'r')", ""));
			}
			if (!this.indexes) {
				pairs.addAll(List.of("redis.call('ZREM', KEYS[3], ARGV[2])", ""));
			}
			if (!this.history) {
				pairs.addAll(List.of("redis.call('HSET', KEYS[1], 'm', '', 'f', '', 'a', '', 't' .. string.format('%d', slot),",
						"redis.call('HSET', KEYS[1], 'm', '', 'f', '', 'a', '', 'e', ARGV[7])",
						"  ARGV[6] .. SEP .. token .. SEP .. 'released' .. SEP .. now_text, 'n', string.format('%d', (slot + 1) % history),",
						"", "  'e', ARGV[7])", ""));
			}
			if (this.compact) {
				pairs.addAll(List.of("local v = redis.call('HMGET', KEYS[1], 'm', 'f', 'c', 'h', 'e', 'p', 'a', 'n')",
						"local v = redis.call('HMGET', KEYS[1], 'm', 'h', 'c', 'h', 'e', 'p', 'a', 'n')",
						"local record = '2' .. SEP .. 'released' .. SEP .. token .. SEP .. acquired .. SEP .. renewed .. SEP .. expires",
						"local record = ''", "  .. SEP .. ttl .. SEP .. lifetime .. SEP .. v[2]", "",
						"local stored = redis.call('SET', KEYS[2], '3-' .. SEP .. ARGV[3] .. SEP .. 'lease_released' .. SEP .. now_text",
						"local stored = redis.call('SET', KEYS[2], '3-' .. SEP .. ARGV[3] .. SEP .. now_text, 'NX', 'GET', 'PX', ARGV[8])",
						"  .. SEP .. ARGV[2] .. SEP .. record, 'NX', 'GET', 'PX', ARGV[8])", ""));
			}
			return derive(RELEASE, pairs);
		}

	}

	private static final String SEP = "\u001f";

	/** Shared Lua: backend time, the deadline rule, and the ending of a lease found expired. */
	private static final String PRELUDE = """
			local SEP = '\\31'
			local STATE_BYTES = { released = 'r', revoked = 'v', expired = 'x' }
			local t = redis.call('TIME')
			local now = t[1] * 1000 + math.floor(t[2] / 1000)
			local function late(deadline_text, max_deadline_text)
			  local deadline = deadline_text + 0
			  if deadline > now + max_deadline_text then return 'invalid_lease_request' end
			  if now > deadline then return 'deadline_exceeded' end
			  return nil
			end
			-- m = state SEP token SEP acquired SEP renewed SEP expires SEP ttl SEP lifetime
			local M = '^([^\\31]*)\\31(%d+)\\31(%d+)\\31(%d+)\\31(%d+)\\31(%d+)\\31(%d+)$'
			-- ends the active lease (fixed part f, token) of identity key k as state: history slot, terminal byte of
			-- its acquire's result (through its lease id), expiry queue entry
			local function end_lease(k, d, f, token, n, history, state, stamp)
			  local lease_id = string.match(f, '^[^\\31]*\\31[^\\31]*\\31[^\\31]*\\31[^\\31]*\\31[^\\31]*\\31[^\\31]*\\31[^\\31]*\\31([^\\31]*)\\31')
			  local slot = (n or '0') + 0
			  if slot >= history then slot = 0 end
			  redis.call('HSET', k, 'm', '', 'f', '', 'a', '', 't' .. string.format('%d', slot),
			    lease_id .. SEP .. token .. SEP .. state .. SEP .. string.format('%d', now),
			    'n', string.format('%d', (slot + 1) % history), 'e', stamp)
			  local base = string.sub(k, 1, #k - #d - 2)
			  local hash = string.match(lease_id, '^lease_(%x+)_')
			  if hash then
			    local result = base .. 'idem:' .. hash
			    if redis.call('EXISTS', result) == 1 then redis.call('SETRANGE', result, 1, STATE_BYTES[state]) end
			  end
			  redis.call('ZREM', base .. 'idx:expiry', d)
			end
			""";

	/**
	 * KEYS l:D, idem:H, idx:program, idx:expiry. ARGV deadline, D, request digest, identity prefix, effective TTL,
	 * times tail (SEP ttl SEP lifetime), fixed rest (lease id first), limit ('' none), stamp, retention ms, maximum
	 * deadline ms, clock skew ms, history length. Reply {code, decided, token} | {code, reason} | {'replayed', result}.
	 */
	static final String ACQUIRE = PRELUDE + """
			local refused = late(ARGV[1], ARGV[11])
			if refused then return { refused, 'none' } end
			local v = redis.call('HMGET', KEYS[1], 'm', 'f', 'c', 'h', 'e', 'p', 'a', 'n')
			if v[1] and v[1] ~= '' then
			  if string.sub(v[2] or '', 1, #ARGV[4]) ~= ARGV[4] then return { 'lease_backend_unavailable', 'corrupt_record' } end
			  local _, token, _, _, expires = string.match(v[1], M)
			  if not token then return { 'lease_backend_unavailable', 'corrupt_record' } end
			  if v[5] ~= ARGV[9] then return { 'lease_backend_unavailable', 'recovery_required' } end
			  if now < expires + 0 then
			    local stored = redis.call('GET', KEYS[2])
			    if stored then return { 'replayed', stored } end
			    return { 'lease_conflict', string.format('%d', expires - now) }
			  end
			  end_lease(KEYS[1], ARGV[2], v[2], token, v[8], ARGV[13] + 0, 'expired', ARGV[9])
			end
			if ARGV[8] ~= '' then
			  local limit = ARGV[8] + 0
			  local active = redis.call('ZCARD', KEYS[4])
			  if active >= limit then active = active - redis.call('ZCOUNT', KEYS[4], '-inf', string.format('%d', now)) end
			  if active >= limit then return { 'lease_rate_limited', 'active_lease_limit_reached' } end
			end
			local counter = 0
			if v[3] then
			  if not string.match(v[3], '^%d+$') then return { 'lease_backend_unavailable', 'corrupt_record' } end
			  counter = v[3] + 0
			end
			if counter > (now + ARGV[12]) * 1024 then return { 'lease_backend_unavailable', 'backend_clock_behind' } end
			local token = math.max(counter + 1, now * 1024)
			if token >= 9007199254740991 then return { 'lease_backend_unavailable', 'fencing_counter_exhausted' } end
			local token_text, now_text = string.format('%d', token), string.format('%d', now)
			local expires_text = string.format('%d', now + ARGV[5])
			local m = 'active' .. SEP .. token_text .. SEP .. now_text .. SEP .. now_text .. SEP .. expires_text .. ARGV[6]
			local f = ARGV[4] .. ARGV[7]
			local stored = redis.call('SET', KEYS[2], '3a' .. SEP .. ARGV[3] .. SEP .. 'lease_acquired' .. SEP .. now_text
			  .. SEP .. ARGV[2] .. SEP .. '2' .. SEP .. m .. SEP .. f, 'NX', 'GET', 'PX', ARGV[10])
			if stored then return { 'replayed', stored } end
			if v[6] then
			  redis.call('HSET', KEYS[1], 'm', m, 'f', f, 'c', token_text, 'a', '', 'e', ARGV[9])
			else
			  redis.call('HSET', KEYS[1], 'm', m, 'f', f, 'c', token_text, 'a', '', 'e', ARGV[9], 'p', '1')
			  redis.call('ZADD', KEYS[3], '0', ARGV[2])
			end
			redis.call('ZADD', KEYS[4], expires_text, ARGV[2])
			return { 'lease_acquired', now_text, token_text }
			""";

	/**
	 * KEYS l:D, idem:H (this release), idx:expiry, idem:H (the lease's acquire). ARGV deadline, D, request digest,
	 * holder prefix (identity prefix, lease id, owner, instance), token, lease id, stamp, retention ms, maximum deadline
	 * ms, history length. Reply {code, decided, record} | {code, reason} | {'replayed', result}.
	 */
	static final String RELEASE = PRELUDE + """
			local refused = late(ARGV[1], ARGV[9])
			if refused then return { refused, 'none' } end
			local v = redis.call('HMGET', KEYS[1], 'm', 'f', 'c', 'h', 'e', 'p', 'a', 'n')
			local state, token, acquired, renewed, expires, ttl, lifetime
			if v[1] and v[1] ~= '' then state, token, acquired, renewed, expires, ttl, lifetime = string.match(v[1], M) end
			if v[1] and v[1] ~= '' and not state then return { 'lease_backend_unavailable', 'corrupt_record' } end
			if state and v[5] ~= ARGV[7] then return { 'lease_backend_unavailable', 'recovery_required' } end
			if state and now >= expires + 0 then
			  end_lease(KEYS[1], ARGV[2], v[2], token, v[8], ARGV[10] + 0, 'expired', ARGV[7])
			  state = nil
			end
			if not state or token ~= ARGV[5] or string.sub(v[2] or '', 1, #ARGV[4]) ~= ARGV[4] then
			  local stored = redis.call('GET', KEYS[2])
			  if stored then return { 'replayed', stored } end
			  return { 'lease_lost', 'stale_lease' }
			end
			local now_text = string.format('%d', now)
			local record = '2' .. SEP .. 'released' .. SEP .. token .. SEP .. acquired .. SEP .. renewed .. SEP .. expires
			  .. SEP .. ttl .. SEP .. lifetime .. SEP .. v[2]
			local stored = redis.call('SET', KEYS[2], '3-' .. SEP .. ARGV[3] .. SEP .. 'lease_released' .. SEP .. now_text
			  .. SEP .. ARGV[2] .. SEP .. record, 'NX', 'GET', 'PX', ARGV[8])
			if stored then return { 'replayed', stored } end
			local history = ARGV[10] + 0
			local slot = (v[8] or '0') + 0
			if slot >= history then slot = 0 end
			redis.call('HSET', KEYS[1], 'm', '', 'f', '', 'a', '', 't' .. string.format('%d', slot),
			  ARGV[6] .. SEP .. token .. SEP .. 'released' .. SEP .. now_text, 'n', string.format('%d', (slot + 1) % history),
			  'e', ARGV[7])
			redis.call('SETRANGE', KEYS[4], 1, 'r')
			redis.call('ZREM', KEYS[3], ARGV[2])
			return { 'lease_released', now_text, record }
			""";

	private static final String KEY_PREFIX = "starintel:target-lease:v1:";

	/** The key prefix of {@code bare-v3-compact}. */
	private static final String COMPACT_KEY_PREFIX = "tl:";

	private static final String TENANT = "tenant-bench";

	private static final long TTL_MS = 30_000;

	private static final long MAXIMUM_LIFETIME_MS = 300_000;

	private static final long DEADLINE_MS = 10_000;

	/** The policy defaults the auto-configured store runs with (LeasePolicy.defaults, the starter's limits). */
	private static final String RETENTION_MS = Long.toString(24 * 3_600_000L + 3_600_000L);

	private static final String MAXIMUM_DEADLINE_MS = "120000";

	private static final String CLOCK_SKEW_MS = "30000";

	private static final String HISTORY_LENGTH = "16";

	private static final String ACTIVE_LEASE_LIMIT = "100000";

	private static final char[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

	private static final ThreadLocal<MessageDigest> SHA_1 = ThreadLocal.withInitial(() -> digest("SHA-1"));

	private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> digest("SHA-256"));

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final List<StatefulRedisConnection<String, String>> threadConnections = new CopyOnWriteArrayList<>();

	private final boolean waitForReplica;

	private final Variant variant;

	private final String acquireSha;

	private final String releaseSha;

	private final String program;

	private final String base;

	private final String stamp;

	BareV3Library(BenchRedis redis, String cell, boolean waitForReplica) {
		this(redis, cell, waitForReplica, Variant.CONTRACT);
	}

	BareV3Library(BenchRedis redis, String cell, Variant variant) {
		this(redis, cell, false, variant);
	}

	private BareV3Library(BenchRedis redis, String cell, boolean waitForReplica, Variant variant) {
		if (waitForReplica) {
			ReplicaWait.requireReplica(redis, "bare-v3-wait");
		}
		this.waitForReplica = waitForReplica;
		this.variant = variant;
		this.program = cell.toLowerCase(java.util.Locale.ROOT);
		this.base = (variant.compact ? COMPACT_KEY_PREFIX : KEY_PREFIX) + "{"
				+ base64Sha256("[1,\"" + TENANT + "\",\"" + this.program + "\"]").substring(0, 16) + "}:";
		this.client = RedisClient.create(redis.url());
		this.connection = this.client.connect();
		RedisCommands<String, String> commands = this.connection.sync();
		this.acquireSha = commands.scriptLoad(variant.acquire());
		this.releaseSha = commands.scriptLoad(variant.release());
		this.stamp = stamp(commands.info("server") + commands.info("replication"));
	}

	/** The node's epoch stamp as the store writes it: 12 characters of the run id and of the replication id. */
	private static String stamp(String info) {
		return field(info, "run_id:") + ":" + field(info, "master_replid:");
	}

	private static String field(String info, String name) {
		int at = info.indexOf(name);
		if (at < 0) {
			return "?";
		}
		int start = at + name.length();
		return info.substring(start, Math.min(start + 12, info.length())).strip();
	}

	@Override
	public LockCycle open(String key, int thread) {
		Caller call;
		if (this.waitForReplica) {
			StatefulRedisConnection<String, String> own = this.client.connect();
			this.threadConnections.add(own);
			ReplicaWait wait = new ReplicaWait(own.async());
			call = (sha, keys, args) -> wait.evalsha(sha, ScriptOutputType.MULTI, keys, args);
		}
		else {
			RedisCommands<String, String> commands = this.connection.sync();
			call = (sha, keys, args) -> commands.evalsha(sha, ScriptOutputType.MULTI, keys, args);
		}
		String[] identity = { TENANT, this.program, "starintel-target", key, "usernamegen", "default", "default" };
		StringBuilder canonical = new StringBuilder("[1");
		StringBuilder prefix = new StringBuilder();
		for (String component : identity) {
			canonical.append(",\"").append(component).append('"');
			prefix.append(component).append(SEP);
		}
		boolean compact = this.variant.compact;
		String fullDigest = base64Sha256(canonical.append(']').toString());
		String digest = compact ? fullDigest.substring(0, 22) : fullDigest;
		String lockKey = KEY_PREFIX + fullDigest;
		String identityPrefix = prefix.toString();
		String identityKey = this.base + "l:" + digest;
		String programIndex = this.base + "idx:program";
		String expiryQueue = this.base + "idx:expiry";
		String timesTail = SEP + TTL_MS + SEP + MAXIMUM_LIFETIME_MS;
		String owner = "bench-" + thread;
		String instance = "instance-" + thread;
		String ownerTail = SEP + owner + SEP + instance + SEP;
		String limit = this.variant.indexes ? ACTIVE_LEASE_LIMIT : "";
		return () -> {
			String requestId = "request_" + random();
			String acquireHash = requestHash(compact, "acquire\n" + lockKey + "\n" + owner + "\n" + requestId);
			String leaseId = "lease_" + acquireHash + "_" + random();
			String requestDigest = base64Sha256(
					String.join("\n", "acquire", lockKey, owner, "client_1", "key_1", instance, Long.toString(TTL_MS),
							Long.toString(MAXIMUM_LIFETIME_MS), "execution_1", "job_1", "trace_1", "{}"));
			String fixedRest = String.join(SEP, leaseId, owner, instance, "client_1", "key_1", "execution_1", "job_1",
					"trace_1", requestId, "{}");
			String acquireResult = this.base + "idem:" + acquireHash;
			String holderDigest = compact ? base64Sha256(identityPrefix + leaseId + ownerTail).substring(0, 22) : null;
			String[] acquireKeys = { identityKey, acquireResult, programIndex, expiryQueue };
			String deadline = Long.toString(System.currentTimeMillis() + DEADLINE_MS);
			List<String> acquireArgs = new ArrayList<>(List.of(deadline, digest, requestDigest, identityPrefix,
					Long.toString(TTL_MS), timesTail, fixedRest, limit, this.stamp, RETENTION_MS, MAXIMUM_DEADLINE_MS,
					CLOCK_SKEW_MS, HISTORY_LENGTH));
			if (compact) {
				acquireArgs.add(leaseId); // ARGV[14], ARGV[15]: the compact result's lease id, the holder's digest
				acquireArgs.add(holderDigest);
			}
			List<Object> acquired = call.evalsha(this.acquireSha, acquireKeys, acquireArgs.toArray(String[]::new));
			String code = code(acquired);
			if (code.equals("lease_conflict")) {
				return false;
			}
			if (!code.equals("lease_acquired")) {
				throw new IllegalStateException("bare-v3 acquire answered " + acquired);
			}
			String token = String.valueOf(acquired.get(2));
			String releaseRequestId = "request_" + random();
			String releaseHash = requestHash(compact, "release\n" + lockKey + "\n" + owner + "\n" + releaseRequestId);
			String releaseDigest = base64Sha256(String.join("\n", "release", lockKey, owner, leaseId, token));
			List<Object> released = call.evalsha(this.releaseSha,
					new String[] { identityKey, this.base + "idem:" + releaseHash, expiryQueue, acquireResult },
					Long.toString(System.currentTimeMillis() + DEADLINE_MS), digest, releaseDigest,
					compact ? holderDigest : identityPrefix + leaseId + ownerTail, token, leaseId, this.stamp, RETENTION_MS,
					MAXIMUM_DEADLINE_MS,
					HISTORY_LENGTH);
			if (!code(released).equals("lease_released")) {
				throw new IllegalStateException("bare-v3 release answered " + released);
			}
			return true;
		};
	}

	/** {@code script} with each line of the pairs (old, new) replaced; each old line must occur exactly once. */
	static String derive(String script, List<String> pairs) {
		List<String> lines = new ArrayList<>(List.of(script.split("\n", -1)));
		for (int i = 0; i < pairs.size(); i += 2) {
			int at = lines.indexOf(pairs.get(i));
			if (at < 0 || lines.lastIndexOf(pairs.get(i)) != at) {
				throw new IllegalStateException("bare-v3 variant: expected exactly one line " + pairs.get(i));
			}
			lines.set(at, pairs.get(i + 1));
		}
		return String.join("\n", lines);
	}

	private static String code(List<Object> reply) {
		return (reply == null || reply.isEmpty()) ? "?" : String.valueOf(reply.get(0));
	}

	/** 26 random Crockford base-32 characters (130 bits), as the store's ids carry. */
	private static String random() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		char[] out = new char[26];
		long bits = random.nextLong();
		for (int i = 0; i < out.length; i++) {
			if (i == 12) {
				bits = random.nextLong();
			}
			out[i] = CROCKFORD[(int) (bits & 31)];
			bits >>>= 5;
		}
		return new String(out);
	}

	/** The idempotency key's hash: 40 hex characters, or for {@code bare-v3-compact} 27 base64url characters. */
	private static String requestHash(boolean compact, String text) {
		byte[] sha1 = hash(SHA_1, text);
		return compact ? Base64.getUrlEncoder().withoutPadding().encodeToString(sha1) : HexFormat.of().formatHex(sha1);
	}

	private static byte[] hash(ThreadLocal<MessageDigest> algorithm, String text) {
		MessageDigest sha = algorithm.get();
		sha.reset();
		return sha.digest(text.getBytes(StandardCharsets.UTF_8));
	}

	private static String base64Sha256(String text) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(hash(SHA_256, text));
	}

	private static MessageDigest digest(String algorithm) {
		try {
			return MessageDigest.getInstance(algorithm);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.threadConnections.forEach(StatefulRedisConnection::close);
		this.connection.close();
		this.client.shutdown();
	}

	/** One EVALSHA (and, for {@code bare-v3-wait}, its replica wait). */
	@FunctionalInterface
	private interface Caller {

		List<Object> evalsha(String sha, String[] keys, String... args);

	}

}
