-- prelude.lua: the shared rules of the lease store's function library (storage v3), each written once: backend time
-- and the deadline rule, the key layout, the record codec, the identity hash and its conversion from storage v2, the
-- node identity and the per-identity epoch stamp. The first part of the library starintel_lease_v3 (LeaseLibrary
-- composes '#!lua name=...' + this file + lease.lua + attach.lua + sweep.lua + fence.lua and loads it with FUNCTION
-- LOAD). KEYS/ARGV: none of its own. Only local definitions (no call to Redis at load time).
--
-- Key layout (base B = 'starintel:target-lease:v1:{T}:', T the program's hash tag, D an identity's key digest; Java's
-- home of the same layout is io.starintel.lease.store.redis.internal.RedisKeys):
--   B..'l:'..D        hash: the identity. m = mutable part of the active record ('' or absent: none), f = its fixed
--                     part, c = fencing counter (last issued token; never deleted), h = fenced-write high-water mark,
--                     e = epoch stamp (the node the identity's state was last written on), p = '1' while D is in
--                     idx:program, a = '1' once the active lease has attached keys, n = next history slot,
--                     t0..t15 = terminal history ring (lease_id SEP token SEP state SEP ended_ms)
--   B..'idem:'..H     string: the result of one mutating request (H = SHA-1 of operation, lock key, principal, request
--                     id). An acquire's record doubles as its lease's resolution (lease ids carry H) and state
--                     (byte 2: a active, r released, v revoked, x expired; rewritten in place, TTL kept)
--   B..'idx:program'  zset (score 0, member D): the program's identities, written once per identity, pruned lazily
--   B..'idx:expiry'   zset (score expires_ms, member D): the active leases (exact: the active-lease limit counts it)
--   B..'expired'      list: D SEP record of leases ended as expired outside the sweeper, drained by the sweep
--   B..'audit'        stream: admin and recovery events; B..'quarantine:'..D: a corrupt identity hash, for an operator
--   B..'kv:'..K, B..'att:'..L..':'..N   attached keys (attach.lua); B..'checkpoint:'..D (fence.lua);
--   B..'couchdb:marks' (fence.lua); B..'consumed:'..D (fence.lua, in the consumer's program)
--   storage v2 keys, read on first touch and never written again except the tombstone: B..'lease:'..D (a v2 record;
--   replaced by the tombstone '3', which a v2 process reads as corrupt and refuses: never a second holder),
--   B..'fence:'..D (v2 counter and mark), B..'hist:'..D (v2 history), B..'lid:'..L (v2 lease-id evidence)
--
-- Record (the wire form in replies and idempotency results, the storage encoding 2 of core.internal.StoredRecord):
--   '2' SEP state SEP token SEP acquired_ms SEP renewed_ms SEP expires_ms SEP ttl_ms SEP lifetime_ms SEP fixed
--   stored as m = state SEP token SEP acquired SEP renewed SEP expires SEP ttl SEP lifetime and f = fixed
--   (identity prefix: the 7 components each + SEP, then lease_id owner_principal service_instance client credential
--   execution job trace request metadata). The identity prefix and the holder prefix (identity prefix .. lease_id SEP
--   owner_principal SEP service_instance SEP) make the identity and exact-holder checks one string comparison each.

-- the string functions and redis.call/pcall as upvalues, bound on the first call of any function (library load time
-- offers neither: see bind and register)
local s_match, s_find, s_sub, s_format, s_byte, r_call, r_pcall

local function bind()
  s_match, s_find, s_sub, s_format, s_byte = string.match, string.find, string.sub, string.format, string.byte
  r_call, r_pcall = redis.call, redis.pcall
end

-- whether this call has read the node's replication id yet (current_node below); reset at every call
local node_read = false

-- registers function LIBRARY_name; every function of the library is registered through it. The caller's last
-- argument is the call's echo (ScriptExecutor: unique per call of the process): it is taken off before the function
-- sees its arguments and added as the reply's last element, so that a client handed another call's reply (a reply
-- lost on a connection shifts every later reply onto the call before it) knows it at once instead of reading
-- another call's result as its own. An error reply stays an error (its err field decides).
local function register(name, f)
  redis.register_function(LIBRARY .. '_' .. name, function(keys, args)
    if not r_call then bind() end
    node_read = false
    local n = #args
    local echo = args[n]
    args[n] = nil
    local reply = f(keys, args)
    if type(reply) ~= 'table' then reply = { reply } end
    reply[#reply + 1] = echo
    return reply
  end)
end

local SEP = '\31'
local KEY_PREFIX = 'starintel:target-lease:v1:'
local HISTORY_SLOTS = 16 -- the ring t0..t15 (core: LeasePolicy's history length is capped here)
local TOMBSTONE = '3'    -- the value left at a v2 record key: a v2 process reads it as corrupt and refuses

-- ---- time and the deadline rule ----------------------------------------------------------------------------------

-- backend time in ms. Numbers that are digits by construction become numbers by coercion (x + 0).
local function now_ms()
  local t = r_call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end

-- an integer as exact decimal text (never tostring/cjson: they print 1.8e+15); the last two are kept (a call formats
-- its backend time between other numbers more than once)
local last_n, last_text, prev_n, prev_text = nil, nil, nil, nil
local function fmt(n)
  if n == last_n then return last_text end
  if n == prev_n then
    prev_n, prev_text, last_n, last_text = last_n, last_text, prev_n, prev_text
    return last_text
  end
  prev_n, prev_text = last_n, last_text
  last_n, last_text = n, s_format('%d', n)
  return last_text
end

-- the deadline rule (contract: "Every call has a finite deadline_at"; an operation that has not begun before it is
-- deadline_exceeded; a deadline beyond the server's maximum is invalid): nil when the call may proceed, else the code
local function deadline_refusal(deadline_text, now, max_deadline)
  local deadline = deadline_text + 0
  if max_deadline and deadline > now + max_deadline then return 'invalid_lease_request' end
  if now > deadline then return 'deadline_exceeded' end
  return nil
end

-- the policy table of a policy text 'retention_ms SEP maximum_deadline_ms SEP clock_skew_ms SEP grace_ms SEP
-- history_length SEP history_ms [SEP retry_window_ms]', parsed once per distinct text (a text without the retry
-- window, from an older process, keeps every idempotency result for the whole retention)
local POLICY_CACHE_SIZE = 16
local policies, policy_count = {}, 0
local function policy(text)
  local cached = policies[text]
  if cached then return cached end
  local a, b, c, d, e, f, g = s_match(text, '^(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)$')
  if not a then a, b, c, d, e, f = s_match(text, '^(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)$') end
  local p = { retention = a + 0, max_deadline = b + 0, skew = c + 0, grace = d + 0,
    history_length = math.min(e + 0, HISTORY_SLOTS), history_ms = f + 0, retention_text = a, history_ms_text = f,
    retry = g and (g + 0) or nil }
  if policy_count >= POLICY_CACHE_SIZE then policies, policy_count = {}, 0 end
  policies[text], policy_count = p, policy_count + 1
  return p
end

-- ---- keys --------------------------------------------------------------------------------------------------------

local function identity_key(base, digest) return base .. 'l:' .. digest end
local function idem_key(base, hash) return base .. 'idem:' .. hash end
local function base_of_identity_key(key, digest) return s_sub(key, 1, #key - #digest - 2) end

-- ---- the record codec --------------------------------------------------------------------------------------------

-- the mutable part: state token acquired renewed expires ttl lifetime (expires is what every caller decides on)
local M_PATTERN = '^([^\31]*)(\31(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+))$'

-- the record table { state, token (text), acquired, renewed, expires (numbers), ttl, lifetime (text), fixed,
-- attached, tail } of a stored m and f, or nil when m is not a valid mutable part. tail: the text of m after the
-- state (SEP token SEP acquired ... lifetime), kept as read so that m_of and encode format no number; whoever
-- changes a time or the TTL clears it.
local function record_of(m, f, attached)
  if type(m) ~= 'string' or m == '' or type(f) ~= 'string' then return nil end
  local state, tail, token, acquired, renewed, expires, ttl, lifetime = s_match(m, M_PATTERN)
  if not state then return nil end
  return { state = state, token = token, acquired = acquired + 0, renewed = renewed + 0, expires = expires + 0,
    ttl = ttl, lifetime = lifetime, fixed = f, attached = attached == '1', tail = tail }
end

-- the text of m after the state
local function tail_of(r)
  local tail = r.tail
  if not tail then
    tail = SEP .. r.token .. SEP .. fmt(r.acquired) .. SEP .. fmt(r.renewed) .. SEP .. fmt(r.expires) .. SEP .. r.ttl
      .. SEP .. r.lifetime
    r.tail = tail
  end
  return tail
end

local function m_of(r)
  return r.state .. tail_of(r)
end

-- the wire form (replies, idempotency results)
local function encode(r)
  return '2\31' .. r.state .. tail_of(r) .. SEP .. r.fixed
end

-- a wire-form record (v3 idempotency results and v2 records) as a record table, or nil
local WIRE = '^2\31([^\31]*\31%d+\31%d+\31%d+\31%d+\31%d+\31%d+)\31(.*)$'
local function decode(text)
  if type(text) ~= 'string' then return nil end
  local m, f = s_match(text, WIRE)
  if not m then return nil end
  local attached = false
  if s_byte(f, -1) == 97 and s_byte(f, -2) == 31 then f, attached = s_sub(f, 1, -3), true end -- v2 marker
  return record_of(m, f, attached and '1' or nil)
end

-- where the lease id of a fixed part or a holder (both begin identity prefix .. lease_id SEP) lies: the positions of
-- the 7th and the 8th separator, or nil when there are fewer. Plain searches for the separator: a pattern would test
-- the text one character class at a time.
local function lease_id_span(text)
  local at = 0
  for _ = 1, 7 do
    at = s_find(text, SEP, at + 1, true)
    if not at then return nil end
  end
  local stop = s_find(text, SEP, at + 1, true)
  if not stop then return nil end
  return at, stop
end

-- the lease id of a record table, read from its fixed part once per table (false kept for none)
local function lease_id_of(r)
  local lease_id = r.lease_id
  if lease_id == nil then
    local at, stop = lease_id_span(r.fixed)
    lease_id = at and s_sub(r.fixed, at + 1, stop - 1) or false
    r.lease_id = lease_id
  end
  return lease_id or nil
end

local function is_holder(r, holder, token)
  return r.token == token and s_find(r.fixed, holder, 1, true) == 1
end

-- the identity prefix and lease id of a holder (identity prefix .. lease_id SEP owner SEP instance SEP), or nil
local function holder_parts(holder)
  local at, stop = lease_id_span(holder)
  if not at then return nil end
  return s_sub(holder, 1, at), s_sub(holder, at + 1, stop - 1)
end

-- all SEP-separated fields of a text (off the hot path)
local function split(text)
  local out, start = {}, 1
  while true do
    local i = s_find(text, SEP, start, true)
    if not i then out[#out + 1] = s_sub(text, start); return out end
    out[#out + 1] = s_sub(text, start, i - 1)
    start = i + 1
  end
end

-- ISO-8601 of epoch ms (audit stream entries)
local function civil_from_days(z)
  z = z + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  return y, m, d
end

local function ms_to_iso(ms)
  local days = math.floor(ms / 86400000)
  local rest = ms - days * 86400000
  local y, m, d = civil_from_days(days)
  return s_format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', y, m, d, math.floor(rest / 3600000),
    math.floor((rest % 3600000) / 60000), math.floor((rest % 60000) / 1000), rest % 1000)
end

-- ---- the node identity and the epoch stamp -------------------------------------------------------------------
-- Contract: "Before a restored namespace accepts work, recovery [...] invalidates all restored active leases". Each
-- identity hash carries the stamp e of the node its state was written on: the leading characters of that node's
-- run id and replication id, both of which change when a replica is promoted (new replication id) or a server
-- restarts (new run id). A call that meets another node's stamp on an active lease (a promotion, restart or
-- restore since) revokes that lease first (automatic recovery, audited) or refuses (recovery_required).
-- The run id changes only with a new process, which starts a new Lua state too: it is read once per Lua state. The
-- replication id is read once per call (INFO replication): a primary demoted by a switchover keeps its Lua state
-- through the partial resynchronization, and promoted again it has a new replication id, so an identity it stamped
-- in its earlier term as primary (perhaps ended on the other node since, and not yet replicated back) reads as
-- another node's, never as this node's.
local my_run, my_id = nil, nil

local function current_node()
  if not node_read then
    if not my_run then my_run = s_sub(s_match(r_call('INFO', 'server'), 'run_id:(%x+)') or '?', 1, 12) end
    local info = r_call('INFO', 'replication')
    local at = s_find(info, 'master_replid:', 1, true) -- a plain search: the pattern scan costs more than INFO
    my_id = my_run .. ':' .. (at and s_sub(info, at + 14, at + 25) or '?')
    node_read = true
  end
  return my_id
end

-- the state of a stamp: 'current' (this node's), 'fresh' (none yet: a new identity, or data from before stamps) or
-- 'foreign' (another node's)
local function stamp_state(stamp)
  if not stamp then return 'fresh' end
  if stamp == current_node() then return 'current' end
  return 'foreign'
end
