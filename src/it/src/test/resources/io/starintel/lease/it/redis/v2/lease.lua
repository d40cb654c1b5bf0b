-- lease.lua: the lease transitions of the function library starintel_lease_v2 (follows prelude.lua, the record
-- codec). Every function decides at backend time (TIME, read once) on keys that share one hash tag; the argument
-- lists are built by io.starintel.lease.store.redis.LeaseArguments (list, recover: ProgramArguments), one named
-- builder per function. fence_checkpoint.lua and fence_consume.lua (the fence functions) use its read-only
-- peek_record, is_holder and high_water_mark.
--
-- Common arguments: deadline = the request deadline (epoch ms); base = 'P{T}:'; digest = D of the lock key;
-- policy = 'retention_ms\31maximum_deadline_ms\31clock_skew_ms\31grace_ms\31history_length\31history_ms';
-- identity = the record's identity prefix (7 components, each followed by \31); holder = identity .. lease_id \31
-- owner_principal_id \31 service_instance_id \31 (the exact-holder prefix of the fixed part).
--
-- Single-lease replies (all strings): a fresh success of acquire { code, decided_ms, token } (the caller has every
-- other field) or of release { code, decided_ms, record }; a refusal { code, reason, decided_ms, retry_after_ms };
-- otherwise { code, reason, decided_ms, retry_after_ms, current_state | '', replayed '0'|'1', record | '' } -- the
-- record is the v2 string (or, for an idempotency result stored by the v1 encoding, its JSON text). Codes and reasons
-- are the contract's wire names (ReplyReader reads all three shapes).
--
-- Acquire and release receive every key they write as a declared KEY (no key name is built in Lua on their hot
-- paths; base_of derives the base for their slower branches). Keys (the others derived from base): lease:D (string: the stored record, prelude.lua; the v2
-- hash form {r = record} and the v1 26-field hash of earlier releases are converted on first touch), fence:D (hash counter,
-- hwm; never deleted), hist:D (list of ended records, newest first, bounded), idem:H (string: request digest \31
-- code \31 decided_ms \31 record), lid:<lease id> (string: D while active; D \31 terminal state afterwards, for the
-- idempotency retention: the replay state of a lease), idx:program (zset, score 0, member D), idx:expiry (zset,
-- score expires_ms), expired (list: D \31 record of leases ended as expired outside the sweeper, drained by
-- sweep.lua), quarantine:D (DUMP of a corrupt record), audit (stream), att:<lease id>:<token> and kv:K (the
-- attached keys of attach.lua, deleted by end_lease).

local MAX_TOKEN = 9007199254740991 -- 2^53 - 1 (core: LeaseRecord.MAX_FENCING_TOKEN)
local TOKENS_PER_MS = 1024         -- core: FencingTokenRule.PER_MILLISECOND

-- the policy table of a policy text, parsed once per distinct text (a store has one policy: the cache holds a few
-- entries; it is emptied if it ever grows past POLICY_CACHE_SIZE). Callers never modify the table.
local POLICY_CACHE_SIZE = 16
local policies, policy_count = {}, 0
local function policy(text)
  local cached = policies[text]
  if cached then return cached end
  local a, b, c, d, e, f = s_match(text, '^(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)$')
  local p = { retention = tonumber(a), max_deadline = tonumber(b), skew = tonumber(c), grace = tonumber(d),
    history_length = tonumber(e), history_ms = tonumber(f),
    -- the same as Redis arguments (text), and the last history index kept
    retention_text = a, history_ms_text = f, history_last_text = fmt(tonumber(e) - 1) }
  if policy_count >= POLICY_CACHE_SIZE then policies, policy_count = {}, 0 end
  policies[text], policy_count = p, policy_count + 1
  return p
end

local function reply(code, reason, now, retry, current, replayed, record)
  return { code, reason, fmt(now), retry and fmt(retry) or '0', current or '', replayed and '1' or '0',
    record or '' }
end

local function refuse(code, reason, now, retry)
  return { code, reason, fmt(now), retry and fmt(retry) or '0' }
end

local function quarantine(base, digest)
  local key = base .. 'lease:' .. digest
  local q = base .. 'quarantine:' .. digest
  if r_call('EXISTS', q) == 0 then r_call('SET', q, r_call('DUMP', key)) end
  r_call('PERSIST', key)
end

-- deletes every key attached to the lease (lease id, token) (attach.lua): the hash att:<lease id>:<token> names
-- them (field K -> attached name) and each kv:K goes, UNLINKed in chunks far below Lua's unpack limit. Conditional on
-- lease id and token by construction: a successor's keys live under its own att key. Called only for a record with
-- the ATTACHED marker (prelude.lua: attach.lua sets it with the first attached key): a lease that never had one
-- costs nothing here.
local ATTACH_CHUNK = 1000
local function delete_attached(base, lease_id, token)
  local att = base .. 'att:' .. lease_id .. ':' .. token
  local hashes = r_call('HKEYS', att)
  local n = #hashes
  if n == 0 then return 0 end
  for i = 1, n, ATTACH_CHUNK do
    local chunk = {}
    for j = i, math.min(i + ATTACH_CHUNK - 1, n) do chunk[#chunk + 1] = base .. 'kv:' .. hashes[j] end
    r_call('UNLINK', unpack(chunk))
  end
  r_call('UNLINK', att)
  return n
end

-- the base 'P{T}:' of a lease key 'P{T}:lease:D' (the hot paths receive keys, not the base; only their slower
-- branches -- replay, conversion, expiry -- need it)
local function base_of(lease_key, digest)
  return s_sub(lease_key, 1, #lease_key - #digest - 6)
end

local EXPIRED_OUTBOX_LENGTH = 10000 -- core: SweepRequest (the sweeper drains it; bounded when no sweeper runs)
local EXPIRED_OUTBOX_LAST = '9999'

-- ends an active record: its attached keys deleted, terminal entry in bounded history, per-lease terminal evidence
-- for the replay retention, record and index entries removed. Never touches the fencing counter. A lease found
-- expired by any operation other than the sweeper (reported = nil) is also queued on the program's expired outbox
-- (list 'expired', D \31 record), which sweep.lua drains, so that every expired lease is reported -- and audited --
-- by exactly one sweep call. Returns the number of attached keys deleted and the ended record's wire form.
-- k: the keys, when the caller has them (release passes its declared KEYS: lease, hist, lid, idx:program,
-- idx:expiry); nil: derived from base.
local function end_lease(base, p, digest, r, state, lease_id, reported, k, ended)
  r.state = state
  lease_id = lease_id or lease_id_of(r)
  local deleted = 0
  if k and not base then base = base_of(k[1], digest) end -- only a lease with attached keys or an expiry needs it
  if r.attached then deleted = delete_attached(base, lease_id, r.token) end
  local lease_key, hist, lid, program, expiry
  if k then
    lease_key, hist, lid, program, expiry = k[1], k[2], k[3], k[4], k[5]
  else
    lease_key, hist, lid = base .. 'lease:' .. digest, base .. 'hist:' .. digest, base .. 'lid:' .. lease_id
    program, expiry = base .. 'idx:program', base .. 'idx:expiry'
  end
  ended = ended or encode(r)
  if state == 'expired' and not reported then
    local outbox = base .. 'expired'
    if r_call('LPUSH', outbox, digest .. SEP .. ended) > EXPIRED_OUTBOX_LENGTH then
      r_call('LTRIM', outbox, '0', EXPIRED_OUTBOX_LAST)
    end
    r_call('PEXPIRE', outbox, p.history_ms_text)
  end
  if r_call('LPUSH', hist, ended) > p.history_length then -- trimmed only past the bound: same list either way
    r_call('LTRIM', hist, '0', p.history_last_text)
  end
  r_call('PEXPIRE', hist, p.history_ms_text)
  r_call('DEL', lease_key)
  r_call('SET', lid, digest .. SEP .. state, 'PX', p.retention_text)
  r_call('ZREM', program, digest)
  r_call('ZREM', expiry, digest)
  return deleted, ended
end

-- a record in a hash form of an earlier release as a record table, or nil when it is not a valid one: the v2 hash
-- form (single field r = the v2 string, attached keys possible) or the v1 hash (26 fields, checked against the lock
-- key and, when known, the identity). Both are marked ATTACHED: they may own attached keys (one lookup at their end).
local function read_hash(key, identity, digest)
  local raw = r_pcall('HGETALL', key)
  if raw['err'] then return nil end -- neither string nor hash
  local r
  if #raw == 2 and raw[1] == 'r' then
    r = decode(raw[2])
  else
    local map = {}
    for i = 1, #raw, 2 do map[raw[i]] = raw[i + 1] end
    local expected = nil
    if identity then
      expected = split(identity)
      table.insert(expected, 1, KEY_PREFIX .. digest)
    end
    if check_record(map, expected) or map['lock_key'] ~= KEY_PREFIX .. digest then return nil end
    r = v1_map_to_record(map)
  end
  if r then r.attached = true end
  return r
end

-- the record stored for digest: 'none' | 'active', r | 'corrupt' (quarantined). identity (prefix) may be nil when
-- the caller does not know it (expiry reclaim, list, recovery); then the record is not checked against it. A valid
-- record in a hash form (read_hash) is converted to the string form in place, its physical TTL kept, atomically in
-- the calling function (first touch); an invalid one is quarantined as it is.
local function load_record(base, digest, identity, key, text)
  key = key or (base .. 'lease:' .. digest)
  if text == nil then text = r_pcall('GET', key) end
  if not text then return 'none' end
  local r, from_hash
  if type(text) == 'string' then r = decode(text) else r, from_hash = read_hash(key, identity, digest), true end
  if not r or r.state ~= 'active'
      or (identity and s_find(r.fixed, identity, 1, true) ~= 1) then -- a prefix test without a substring
    quarantine(base, digest)
    return 'corrupt'
  end
  if from_hash then
    local pttl = r_call('PTTL', key)
    r_call('DEL', key)
    if pttl > 0 then r_call('SET', key, stored(r), 'PX', fmt(pttl)) else r_call('SET', key, stored(r)) end
  end
  return 'active', r
end

-- the record stored for digest, read only, for the fence functions (fence.lua), which never convert, quarantine or
-- end a lease (that is the lease transitions' job): 'none' | 'found', r (any state: the caller decides) | 'corrupt'
-- (not a record in any encoding load_record reads, or, when identity is given, another identity's).
local function peek_record(base, digest, identity)
  local key = base .. 'lease:' .. digest
  local text = r_pcall('GET', key)
  if not text then return 'none' end
  local r
  if type(text) == 'string' then r = decode(text) else r = read_hash(key, identity, digest) end
  if not r or (identity and s_find(r.fixed, identity, 1, true) ~= 1) then return 'corrupt' end
  return 'found', r
end

-- the active record at backend time: an active-shaped record past expires_at is ended as expired first
local function load_active(base, p, digest, identity, now, key, text)
  local status, r = load_record(base, digest, identity, key, text)
  if status == 'active' and now >= r.expires then
    end_lease(base, p, digest, r, 'expired', nil)
    return 'none'
  end
  return status, r
end

local function is_holder(r, holder, token)
  return r.token == token and s_find(r.fixed, holder, 1, true) == 1
end

-- the lease's state now: active, its terminal state from the per-lease evidence (kept for the idempotency
-- retention), from history (records ended by the v1 encoding), or expired (nothing else ends a lease silently)
local function state_of(base, p, digest, identity, now, lease_id)
  local status, r = load_active(base, p, digest, identity, now)
  if status == 'active' and lease_id_of(r) == lease_id then return 'active' end
  local evidence = r_call('GET', base .. 'lid:' .. lease_id)
  if evidence then
    local state = s_match(evidence, '\31(%a+)$')
    if state then return state end
  end
  for _, entry in ipairs(r_call('LRANGE', base .. 'hist:' .. digest, 0, -1)) do
    if s_find(entry, lease_id, 1, true) then
      local old = decode(entry)
      if old then return old.state end
      local v1 = s_match(entry, '"state":"(%a+)"')
      if v1 then return v1 end
    end
  end
  return 'expired'
end

-- the stored result of idem_key: nil when none, idempotency_conflict for another digest, else the replay
local function replay(base, p, digest, identity, now, idem_key, request_digest, stored)
  if stored == nil then stored = r_pcall('GET', idem_key) end
  local sdigest, code, decided, record
  if type(stored) == 'table' and stored['err'] then
    local raw = r_call('HGETALL', idem_key) -- written by the v1 encoding
    local map = {}
    for i = 1, #raw, 2 do map[raw[i]] = raw[i + 1] end
    sdigest, code, decided, record = map['digest'], map['code'], map['decided'], map['lease'] or ''
  elseif stored then
    sdigest, code, decided, record = s_match(stored, '^([^\31]*)\31([^\31]*)\31([^\31]*)\31(.*)$')
  end
  if not sdigest then return nil end
  if request_digest and sdigest ~= request_digest then
    return refuse('idempotency_conflict', 'none', now)
  end
  local current = nil
  if record ~= '' then
    local lease_id
    local r = decode(record)
    if r then lease_id = lease_id_of(r) else lease_id = s_match(record, '"lease_id":"([^"]+)"') end
    current = state_of(base, p, digest, identity, now, lease_id or '')
  end
  return reply(code, 'none', tonumber(decided), 0, current, true, record)
end

-- the stored result of a mutation (idem:H): decided is the decision time as text (fmt(now))
local function result_text(request_digest, code, decided, record)
  return request_digest .. SEP .. code .. SEP .. decided .. SEP .. (record or '')
end

-- stores the result of a mutation
local function remember(idem_key, request_digest, code, decided, record, p)
  r_call('SET', idem_key, result_text(request_digest, code, decided, record), 'PX', p.retention_text)
end

-- stores the result of a mutation unless the request id already has one, in one command (SET NX GET): the acquire
-- and release hot paths read the idempotency key only on their refusal paths and claim it here, before any
-- mutation. Returns the stored result when there was one (false otherwise; a table for a v1 hash record): the
-- caller then replays it and mutates nothing.
local function claim(idem_key, request_digest, code, decided, record, p)
  return r_pcall('SET', idem_key, result_text(request_digest, code, decided, record), 'NX', 'GET',
    'PX', p.retention_text)
end

-- backend time, the deadline bound, the deadline, then the replay; returns now, p and (when done) the reply
local function begin_mutation(args, idem_key, request_digest, identity)
  local now = now_ms()
  local p = policy(args[4])
  local deadline = args[1] + 0
  if deadline > now + p.max_deadline then return now, p, refuse('invalid_lease_request', 'none', now) end
  if now > deadline then return now, p, refuse('deadline_exceeded', 'none', now) end
  return now, p, replay(args[2], p, args[3], identity, now, idem_key, request_digest)
end

-- a refusal of acquire on a free identity, unless the request id has a stored result: then that result is replayed
-- (every answer but a fresh acquire looks for it first; a fresh acquire claims the key instead, see claim)
local function acquire_refused(keys, args, p, now, code, reason)
  local stored_result = r_pcall('GET', keys[3])
  if stored_result then
    return replay(base_of(keys[1], args[2]), p, args[2], args[5], now, keys[3], args[4], stored_result)
  end
  return refuse(code, reason, now)
end

-- acquire: KEYS lease:D, fence:D, idem:H, lid:<lease id>, idx:program, idx:expiry (all declared: one slot).
-- ARGV deadline, digest, policy, request digest, identity, effective TTL (min(ttl, maximum lifetime), ms), times
-- tail (\31 ttl \31 maximum_lifetime \31), fixed rest (the fixed part after the identity, lease id first), maximum
-- active leases of the program ('' = none).
-- Replies: a fresh acquire { 'lease_acquired', decided_ms, token } (the caller has every other field: expires =
-- decided + effective TTL); lease_conflict (retry_after_ms = time to expiry; the cheap refusal: the lease key read
-- and decoded, nothing written), lease_rate_limited (active_lease_limit_reached: the program holds its maximum of
-- active leases, counted as ZCARD idx:program minus the entries of idx:expiry already due -- the ZCOUNT only when
-- ZCARD reaches the limit), idempotency_conflict, deadline_exceeded, invalid_lease_request,
-- lease_backend_unavailable with corrupt_record | fencing_counter_exhausted | backend_clock_behind; a replay is
-- the single-lease reply with the stored record.
-- Token rule (core: FencingTokenRule): max(counter + 1, backend_ms * 1024), below 2^53 - 1; never reset.
local function acquire(keys, args)
  local now = now_ms()
  local p = policy(args[3])
  local deadline = args[1] + 0
  if deadline > now + p.max_deadline then return refuse('invalid_lease_request', 'none', now) end
  if now > deadline then return refuse('deadline_exceeded', 'none', now) end
  local digest, identity = args[2], args[5]
  local text = r_pcall('GET', keys[1])
  if text then
    local stored_result = r_pcall('GET', keys[3])
    if stored_result then
      return replay(base_of(keys[1], digest), p, digest, identity, now, keys[3], args[4], stored_result)
    end
    local status, current = load_active(base_of(keys[1], digest), p, digest, identity, now, keys[1], text)
    if status == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
    if status == 'active' then return refuse('lease_conflict', 'none', now, current.expires - now) end
  end
  if args[9] ~= '' then
    local limit = args[9] + 0
    local active = r_call('ZCARD', keys[5])
    if active >= limit then active = active - r_call('ZCOUNT', keys[6], '-inf', fmt(now)) end
    if active >= limit then return acquire_refused(keys, args, p, now, 'lease_rate_limited', 'active_lease_limit_reached') end
  end
  local counter_text = r_call('HGET', keys[2], 'counter')
  local counter = 0
  if counter_text then
    if not s_match(counter_text, '^%d+$') then return acquire_refused(keys, args, p, now, 'lease_backend_unavailable', 'corrupt_record') end
    counter = counter_text + 0
  end
  if counter > (now + p.skew) * TOKENS_PER_MS then
    return acquire_refused(keys, args, p, now, 'lease_backend_unavailable', 'backend_clock_behind')
  end
  local token = math.max(counter + 1, now * TOKENS_PER_MS)
  if token >= MAX_TOKEN then return acquire_refused(keys, args, p, now, 'lease_backend_unavailable', 'fencing_counter_exhausted') end
  local token_text = fmt(token)
  local effective = args[6] + 0
  local now_text, expires_text = fmt(now), fmt(now + effective)
  -- encode() of the new record, from the parts Java sent (StoredRecord's layout)
  local record = '2\31active\31' .. token_text .. SEP .. now_text .. SEP .. now_text .. SEP .. expires_text .. args[7]
    .. identity .. args[8]
  local stored_result = claim(keys[3], args[4], 'lease_acquired', now_text, record, p)
  if stored_result then
    return replay(base_of(keys[1], digest), p, digest, identity, now, keys[3], args[4], stored_result)
  end
  local physical = fmt(effective + p.grace)
  r_call('HSET', keys[2], 'counter', token_text)
  r_call('SET', keys[1], record, 'PX', physical)
  r_call('SET', keys[4], digest, 'PX', physical)
  r_call('ZADD', keys[5], '0', digest)
  r_call('ZADD', keys[6], expires_text, digest)
  return { 'lease_acquired', now_text, token_text }
end

-- the record held by exactly this holder, or the reply to return (corrupt_record, or lease_lost: stale_lease)
local function load_held(base, p, digest, identity, now, holder, token, key, text)
  local status, r = load_active(base, p, digest, identity, now, key, text)
  if status == 'corrupt' then return nil, refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if status ~= 'active' or not is_holder(r, holder, token) then
    return nil, refuse('lease_lost', 'stale_lease', now)
  end
  return r, nil
end

local HOLDER_IDENTITY = '^(' .. IDENTITY7 .. ')'

local function holder_identity(holder)
  return s_match(holder, HOLDER_IDENTITY)
end

-- a renewal's new TTL argument: a positive number of ms, or nil ('' or absent) to keep the record's TTL
local function new_ttl(arg)
  local ttl = tonumber(arg or '')
  if ttl and ttl > 0 then return ttl end
  return nil
end

-- renews one held lease; returns the reply. ttl: the new TTL in ms (becomes the record's ttl), or nil to keep it
local function renew_one(base, p, now, digest, idem_key, request_digest, holder, token, lease_id, ttl)
  local identity = holder_identity(holder)
  local early = replay(base, p, digest, identity, now, idem_key, request_digest)
  if early then return early end
  local r, refused = load_held(base, p, digest, identity, now, holder, token)
  if refused then return refused end
  local acquired, _, _, ttl_text, lifetime = times_of(r)
  if ttl then ttl_text = fmt(ttl) else ttl = ttl_text + 0 end
  r.expires = math.min(now + ttl, acquired + lifetime)
  r.times = acquired .. SEP .. fmt(now) .. SEP .. fmt(r.expires) .. SEP .. ttl_text .. SEP .. lifetime
  local physical = fmt(r.expires - now + p.grace)
  local record = encode(r)
  r_call('SET', base .. 'lease:' .. digest, stored(r, record), 'PX', physical)
  r_call('PEXPIRE', base .. 'lid:' .. lease_id, physical)
  r_call('ZADD', base .. 'idx:expiry', fmt(r.expires), digest)
  remember(idem_key, request_digest, 'lease_renewed', fmt(now), record, p)
  return reply('lease_renewed', 'none', now, 0, 'active', false, record)
end

-- renew: KEYS lease:D, idem:H. ARGV deadline, base, digest, policy, request digest, holder, token, lease_id, ttl
-- (the new TTL in ms, checked against policy by the caller and part of the request digest; '' or absent: keep).
-- Never changes the token, never passes the maximum lifetime. Codes: lease_renewed (record), lease_lost
-- (stale_lease), idempotency_conflict, deadline_exceeded, invalid_lease_request, lease_backend_unavailable.
local function renew(keys, args)
  local now = now_ms()
  local p = policy(args[4])
  local deadline = args[1] + 0
  if deadline > now + p.max_deadline then return refuse('invalid_lease_request', 'none', now) end
  if now > deadline then return refuse('deadline_exceeded', 'none', now) end
  return renew_one(args[2], p, now, args[3], keys[2], args[5], args[6], args[7], args[8], new_ttl(args[9]))
end

-- renew_batch: KEYS idem:H of each lease, in order (all in one program: one slot). ARGV base, policy, count n,
-- then n groups of 7: deadline, digest, request digest, holder, token, lease_id, ttl ('' = keep).
-- Reply: a flat list of n single-lease replies, each prefixed by its length. A lease whose deadline has passed at
-- backend time is deadline_exceeded without mutation, like a single renew.
local function renew_batch(keys, args)
  local now = now_ms()
  local base, p, n = args[1], policy(args[2]), args[3] + 0
  local out = {}
  for i = 1, n do
    local a = 3 + (i - 1) * 7
    local deadline = args[a + 1] + 0
    local one
    if deadline > now + p.max_deadline then one = refuse('invalid_lease_request', 'none', now)
    elseif now > deadline then one = refuse('deadline_exceeded', 'none', now)
    else one = renew_one(base, p, now, args[a + 2], keys[i], args[a + 3], args[a + 4], args[a + 5], args[a + 6],
      new_ttl(args[a + 7])) end
    out[#out + 1] = fmt(#one)
    for _, v in ipairs(one) do out[#out + 1] = v end
  end
  return out
end

-- release: KEYS lease:D, hist:D, lid:<lease id>, idx:program, idx:expiry, idem:H (the first five in end_lease's
-- order). ARGV deadline, digest, policy, request digest, holder, token, lease_id.
-- Compare-and-delete with terminal evidence. Replies: { 'lease_released', decided_ms, record } (the ended record),
-- lease_lost (stale_lease), idempotency_conflict, deadline_exceeded, invalid_lease_request,
-- lease_backend_unavailable (corrupt_record); a replay is the single-lease reply with the stored record.
local function release(keys, args)
  local now = now_ms()
  local p = policy(args[3])
  local deadline = args[1] + 0
  if deadline > now + p.max_deadline then return refuse('invalid_lease_request', 'none', now) end
  if now > deadline then return refuse('deadline_exceeded', 'none', now) end
  local digest, holder, token = args[2], args[5], args[6]
  local text = r_pcall('GET', keys[1])
  -- the fast path: a v2 string, active, unexpired, held by exactly this holder (the holder prefix includes the
  -- identity prefix, so the identity check is part of it); anything else first looks for a stored result of this
  -- request id (a retry replays it), then goes through load_held
  local r = decode(text)
  if not (r and r.state == 'active' and now < r.expires and is_holder(r, holder, token)) then
    local stored_result = r_pcall('GET', keys[6])
    if stored_result then
      return replay(base_of(keys[1], digest), p, digest, holder_identity(holder), now, keys[6], args[4],
        stored_result)
    end
    local refused
    r, refused = load_held(base_of(keys[1], digest), p, digest, holder_identity(holder), now, holder, token,
      keys[1], text)
    if refused then return refused end
  end
  r.state = 'released'
  local ended, now_text = encode(r), fmt(now)
  local stored_result = claim(keys[6], args[4], 'lease_released', now_text, ended, p)
  if stored_result then
    return replay(base_of(keys[1], digest), p, digest, holder_identity(holder), now, keys[6], args[4], stored_result)
  end
  end_lease(nil, p, digest, r, 'released', args[7], nil, keys, ended)
  return { 'lease_released', now_text, ended }
end

-- administer: KEYS lease:D, idem:H, audit. ARGV deadline, base, digest, policy, request digest, identity,
-- operation (force_release | revoke), expected lease_id, expected token, admin principal, admin credential,
-- reason, request_id, audit stream approximate maximum length. The audit event is written in this function.
-- Codes: lease_released | lease_revoked (record), lease_lost (stale_lease), idempotency_conflict,
-- deadline_exceeded, invalid_lease_request, lease_backend_unavailable (corrupt_record).
local function administer(keys, args)
  local base, digest, identity = args[2], args[3], args[6]
  local now, p, early = begin_mutation(args, keys[2], args[5], identity)
  if early then return early end
  local revoke = args[7] == 'revoke'
  local status, r = load_active(base, p, digest, identity, now)
  if status == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  local code, state, previous = 'lease_lost', nil, 'none'
  if status == 'active' then previous = 'active' end
  if status == 'active' and lease_id_of(r) == args[8] and r.token == args[9] then
    state = revoke and 'revoked' or 'released'
    code = revoke and 'lease_revoked' or 'lease_released'
  end
  local c = split(identity)
  r_call('XADD', keys[3], 'MAXLEN', '~', args[14], '*',
    'event_type', revoke and 'target_lease_revoke' or 'target_lease_force_release',
    'backend_time', ms_to_iso(now), 'request_id', args[13], 'principal_class', 'administrator',
    'principal_id', args[10], 'credential_id', args[11], 'tenant_id', c[1], 'program_id', c[2],
    'target_namespace', c[3], 'target_id', c[4], 'actor_name', c[5], 'workflow_name', c[6],
    'operation_class', c[7], 'lease_id', args[8], 'fencing_token', args[9], 'previous_state', previous,
    'resulting_state', state or previous, 'result_code', code, 'retryable', 'false', 'backend_health', 'ok',
    'reason', args[12])
  if not state then return refuse('lease_lost', 'stale_lease', now) end
  local _, record = end_lease(base, p, digest, r, state, args[8])
  remember(keys[2], args[5], code, fmt(now), record, p)
  return reply(code, 'none', now, 0, state, false, record)
end

-- the fenced-write high-water mark of fence:D (field hwm: the highest token a fenced write was authorized with; raised by
-- authorize and by fence.lua's checkpoint, never lowered) and whether token (text) is refused by it: hwm text or nil,
-- then nil | 'corrupt_record' (not decimal digits) | 'token_below_high_water_mark'.
local function high_water_mark(fence_key, token)
  local hwm_text = r_call('HGET', fence_key, 'hwm')
  if not hwm_text then return nil, nil end
  if not s_match(hwm_text, '^%d+$') then return hwm_text, 'corrupt_record' end
  if token + 0 < hwm_text + 0 then return hwm_text, 'token_below_high_water_mark' end
  return hwm_text, nil
end

-- authorize: KEYS lease:D, fence:D. ARGV deadline, base, digest, policy, holder, token.
-- The exact holder must be the active, unexpired record and the token not below the high-water mark, which is
-- raised to it. Codes: lease_commit_authorized (record), lease_lost (token_below_high_water_mark | stale_lease),
-- deadline_exceeded, lease_backend_unavailable (corrupt_record).
local function authorize(keys, args)
  local now = now_ms()
  if now > args[1] + 0 then return refuse('deadline_exceeded', 'none', now) end
  local p = policy(args[4])
  local _, below = high_water_mark(keys[2], args[6])
  if below == 'corrupt_record' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if below then return refuse('lease_lost', below, now) end
  local r, refused = load_held(args[2], p, args[3], holder_identity(args[5]), now, args[5], args[6])
  if refused then return refused end
  r_call('HSET', keys[2], 'hwm', args[6])
  return reply('lease_commit_authorized', 'none', now, 0, 'active', false, encode(r))
end

-- inspect: KEYS lease:D. ARGV deadline, base, digest, policy, identity.
-- Codes: lease_inspected (record), lease_not_found, deadline_exceeded, lease_backend_unavailable (corrupt_record).
local function inspect(keys, args)
  local now = now_ms()
  if now > args[1] + 0 then return refuse('deadline_exceeded', 'none', now) end
  local status, r = load_active(args[2], policy(args[4]), args[3], args[5], now)
  if status == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if status ~= 'active' then return refuse('lease_not_found', 'none', now) end
  return reply('lease_inspected', 'none', now, 0, 'active', false, encode(r))
end

-- inspect_by_lease_id: KEYS lid:<lease id>. ARGV deadline, base, policy, lease_id.
-- The key lives in the caller's program (base), so a lease of another program is simply not found.
-- Codes: lease_inspected, lease_not_found, deadline_exceeded, lease_backend_unavailable (corrupt_record).
local function inspect_by_lease_id(keys, args)
  local now = now_ms()
  if now > args[1] + 0 then return refuse('deadline_exceeded', 'none', now) end
  local digest = r_call('GET', keys[1])
  if not digest or s_find(digest, SEP, 1, true) then return refuse('lease_not_found', 'none', now) end
  local status, r = load_active(args[2], policy(args[3]), digest, nil, now)
  if status == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if status ~= 'active' or lease_id_of(r) ~= args[4] then return refuse('lease_not_found', 'none', now) end
  return reply('lease_inspected', 'none', now, 0, 'active', false, encode(r))
end

-- resolve: KEYS lease:D, idem:H. ARGV deadline, base, digest, policy, identity.
-- The stored result marked replayed with the lease's current state, or lease_not_found; deadline_exceeded.
local function resolve(keys, args)
  local now = now_ms()
  if now > args[1] + 0 then return refuse('deadline_exceeded', 'none', now) end
  local replayed = replay(args[2], policy(args[4]), args[3], args[5], now, keys[2], nil)
  if replayed then return replayed end
  return refuse('lease_not_found', 'none', now)
end

-- list: KEYS idx:program. ARGV deadline, base, after (last digest returned, or ''), page size, scan limit,
-- filter (program | owner | target), owner principal or target namespace, target id, policy.
-- Reply: { code, reason, decided_ms, next position (digest) or '', corrupt count, record... } in key-digest order.
-- Owner and target filters scan the program index (no per-owner/per-target index to keep up on the hot path);
-- stale entries (record gone, expired) are removed when seen; corrupt records are counted, never returned.
local function list(keys, args)
  local now = now_ms()
  if now > args[1] + 0 then return { 'deadline_exceeded', 'none', fmt(now), '', '0' } end
  local base, page_size, limit, filter = args[2], tonumber(args[4]), tonumber(args[5]), args[6]
  local p = policy(args[9])
  local want = nil
  if filter == 'target' then want = args[7] .. SEP .. args[8] .. SEP end
  local start = (args[3] == '') and '-' or ('(' .. args[3])
  local out, last, scanned, corrupt = {}, nil, 0, 0
  local exhausted = false
  while #out <= page_size and scanned < limit and not exhausted do
    local batch = math.min(page_size + 1, limit - scanned)
    local members = r_call('ZRANGEBYLEX', keys[1], start, '+', 'LIMIT', 0, batch)
    if #members < batch then exhausted = true end
    for _, digest in ipairs(members) do
      if #out > page_size then break end
      scanned = scanned + 1
      start = '(' .. digest
      local status, r = load_active(base, p, digest, nil, now)
      if status == 'corrupt' then
        corrupt = corrupt + 1
      elseif status == 'none' then
        r_call('ZREM', keys[1], digest)
      else
        local parts = (filter ~= 'program') and split(r.fixed) or nil
        local match = filter == 'program'
          or (filter == 'owner' and parts[9] == args[7])
          or (filter == 'target' and parts[3] == args[7] and parts[4] == args[8])
        if match then
          out[#out + 1] = encode(r)
          last = digest
          out[#out] = digest .. SEP .. out[#out]
        end
      end
    end
  end
  local next_position = ''
  if #out > page_size then
    table.remove(out)
    next_position = s_match(out[#out], '^([^\31]*)')
  elseif not exhausted and scanned >= limit then
    next_position = s_sub(start, 2)
  end
  local reply_list = { 'lease_listed', 'none', fmt(now), next_position, fmt(corrupt) }
  for _, v in ipairs(out) do reply_list[#reply_list + 1] = v end
  return reply_list
end

-- recover: KEYS idx:program, audit. ARGV deadline, base, batch size, admin principal, admin credential, reason,
-- request id, policy, audit stream approximate maximum length. Revokes up to batch active leases of the program.
-- Reply: { code ('lease_revoked' | 'deadline_exceeded'), decided_ms, revoked in this call, index entries left }
local function recover(keys, args)
  local now = now_ms()
  if now > args[1] + 0 then return { 'deadline_exceeded', fmt(now), '0', '0' } end
  local base, p = args[2], policy(args[8])
  local revoked = 0
  for _, digest in ipairs(r_call('ZRANGEBYLEX', keys[1], '-', '+', 'LIMIT', 0, tonumber(args[3]))) do
    local status, r = load_record(base, digest, nil)
    if status == 'active' then
      local c = split(r.fixed)
      end_lease(base, p, digest, r, 'revoked', c[8])
      revoked = revoked + 1
      r_call('XADD', keys[2], 'MAXLEN', '~', args[9], '*', 'event_type', 'target_lease_revoke',
        'backend_time', ms_to_iso(now), 'request_id', args[7], 'principal_class', 'administrator',
        'principal_id', args[4], 'credential_id', args[5], 'tenant_id', c[1], 'program_id', c[2],
        'target_namespace', c[3], 'target_id', c[4], 'actor_name', c[5], 'workflow_name', c[6],
        'operation_class', c[7], 'lease_id', c[8], 'fencing_token', r.token, 'previous_state', 'active',
        'resulting_state', 'revoked', 'result_code', 'lease_revoked', 'retryable', 'false', 'backend_health', 'ok',
        'reason', args[6])
    else
      r_call('ZREM', keys[1], digest)
    end
  end
  return { 'lease_revoked', fmt(now), fmt(revoked), fmt(r_call('ZCARD', keys[1])) }
end

register('acquire', acquire)
register('renew', renew)
register('renew_batch', renew_batch)
register('release', release)
register('administer', administer)
register('authorize', authorize)
register('inspect', inspect)
register('inspect_by_lease_id', inspect_by_lease_id)
register('resolve', resolve)
register('list', list)
register('recover', recover)
