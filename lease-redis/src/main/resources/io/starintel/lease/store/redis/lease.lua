-- lease.lua: the lease transitions of the function library starintel_lease_v3 (follows prelude.lua). Every function
-- decides at backend time (TIME, read once per call; a batch shares one) on keys that share one hash tag; the
-- argument lists are built by io.starintel.lease.store.redis.LeaseArguments (list, recover: ProgramArguments), one
-- named builder per function, in the order each header lists.
--
-- Common arguments: deadline = the request deadline (epoch ms); digest = D; policy = the policy text (prelude.lua);
-- identity = the identity prefix; holder = identity .. lease_id SEP owner_principal_id SEP service_instance_id SEP;
-- recovery = the principal an automatic failover recovery is recorded under ('' = manual recovery: refuse);
-- audit_length = the audit stream's approximate bound.
--
-- Single-lease replies (all strings): a fresh acquire { code, decided_ms, token } (the caller has every other field);
-- a fresh release, renewal or commit authorization { code, decided_ms, state, tail, fixed }: the record the call left
-- in its parts (record_reply); a refusal { code, reason, decided_ms, retry_after_ms }; otherwise
-- { code, reason, decided_ms, retry_after_ms, current_state | '', replayed '0'|'1', record | '' }. Codes and
-- reasons are the contract's wire names (ReplyReader reads all four shapes).

local MAX_TOKEN = 9007199254740991 -- 2^53 - 1 (core: LeaseRecord.MAX_FENCING_TOKEN)
local TOKENS_PER_MS = 1024         -- core: FencingTokenRule.PER_MILLISECOND
local RECOVERY_RETRY_MS = 250
local RECOVERY_CREDENTIAL = 'automatic-recovery'
local RECOVERY_REASON = 'automatic failover recovery: the program\'s primary was promoted, restarted or restored'
local EXPIRED_OUTBOX_LENGTH = 10000 -- core: SweepRequest (the sweeper drains it; bounded when no sweeper runs)
local EXPIRED_OUTBOX_LAST = '9999'
local ATTACH_INLINE = 256 -- attached keys an ending deletes itself; a larger set is handed to the sweep (below)
local ATTACH_CHUNK = 250  -- ended leases' attached keys the sweep deletes per call (sweep.lua)
local STATE_BYTES = { active = 'a', released = 'r', revoked = 'v', expired = 'x' }
local BYTE_STATES = { a = 'active', r = 'released', v = 'revoked', x = 'expired' }

local function reply(code, reason, now, retry, current, replayed, record)
  return { code, reason, fmt(now), retry and fmt(retry) or '0', current or '', replayed and '1' or '0',
    record or '' }
end

local function refuse(code, reason, now, retry)
  return { code, reason, fmt(now), retry and fmt(retry) or '0' }
end

-- a fresh success with the record r the call left, sent in the parts the record table already holds (its state, the
-- text of m after the state, its fixed part: the wire form is '2' SEP state tail SEP fixed, which the client's
-- StoredRecord reads from the parts), so that no string of the whole record is built for the reply; its current
-- state is the record's
local function record_reply(code, now_text, r)
  return { code, now_text, r.state, tail_of(r), r.fixed }
end

-- ---- the identity hash ---------------------------------------------------------------------------------------------

-- v3 lease ids carry the hash of their acquire's idempotency key: lease_<40 hex>_<random>
local V3_LEASE_ID = '^lease_(%x+)_[%w]+$'

-- the acquire result of a v3 lease id (the lease's resolution and state), or nil for a v2 lease id
local last_base, last_lease_id, last_result_key = nil, nil, nil
local function acquire_result_key(base, lease_id)
  if lease_id == last_lease_id and base == last_base then return last_result_key end
  local hash = s_match(lease_id, V3_LEASE_ID)
  local key = nil
  if hash and #hash == 40 then key = idem_key(base, hash) end
  last_base, last_lease_id, last_result_key = base, lease_id, key
  return key
end

-- whether the numbers of an identity are what the library writes: the fencing counter c, the high-water mark h and
-- the next history slot n each absent or decimal digits (a number as large as digits go stays a number: a counter
-- ahead of backend time is the acquire's backend_clock_behind). Calls compute with them, a release after its
-- idempotency claim (end_lease: n), so anything else is a corrupt identity, decided here, before any call acts on it.
-- The other fields are compared, never computed with (e, p, a, v); m's numbers are M_PATTERN's digits.
local function numbers_intact(id)
  local c, h, n = id.c, id.h, id.n
  return (not c or s_find(c, '^%d+$') ~= nil) and (not h or s_find(h, '^%d+$') ~= nil)
    and (not n or s_find(n, '^%d+$') ~= nil)
end

-- the identity of D: { key, base, digest, m, f, c, h, e, p, a, n, r (the record table of m and f, or nil), status
-- ('none' | 'active' | 'corrupt'), v2 (true when the state was read from storage v2 and not written yet) }. identity
-- (prefix) may be nil when unknown (list, sweep, recovery, lease-id lookups). An identity hash that does not exist
-- yet is looked up in storage v2 (record, counter, mark); a writer then stores it in v3 (store_identity). corrupt: not
-- a hash, a v2 record that does not decode, numbers that are not intact (numbers_intact), or an m that is not an
-- active record of the requested identity.
local FIELDS = { 'm', 'f', 'c', 'h', 'e', 'p', 'a', 'n' }
local function load_identity(key, base, digest, identity)
  local v = r_pcall('HMGET', key, 'm', 'f', 'c', 'h', 'e', 'p', 'a', 'n', 'v')
  if v['err'] then -- not a hash: nothing this library wrote
    return { key = key, base = base, digest = digest, status = 'corrupt' }
  end
  local id = { key = key, base = base, digest = digest, m = v[1] or nil, f = v[2] or nil, c = v[3] or nil,
    h = v[4] or nil, e = v[5] or nil, p = v[6] or nil, a = v[7] or nil, n = v[8] or nil, from_v2 = v[9] or nil }
  local numbers_key = key -- where c, h and n were read (a v2 identity's counter and mark: its fence key)
  if not (id.m or id.f or id.c or id.h or id.e or id.p or id.n) then
    -- no v3 hash: the identity's storage v2 keys, if any (read only here; store_identity converts)
    local text = r_pcall('GET', base .. 'lease:' .. digest)
    local v2
    if type(text) == 'string' and text ~= TOMBSTONE then
      v2 = decode(text)
    elseif type(text) == 'table' then -- the v2 hash form { r = record } of an earlier v2 release
      local raw = r_pcall('HGETALL', base .. 'lease:' .. digest)
      if not raw['err'] and #raw == 2 and raw[1] == 'r' then v2 = decode(raw[2]) end
      if v2 then v2.attached = true end
    end
    if (text and text ~= TOMBSTONE) and not v2 then
      id.status, id.quarantine_key = 'corrupt', base .. 'lease:' .. digest
      return id
    end
    numbers_key = base .. 'fence:' .. digest
    local fence = r_pcall('HMGET', numbers_key, 'counter', 'hwm')
    if fence['err'] then -- not a hash
      id.status, id.quarantine_key = 'corrupt', numbers_key
      return id
    end
    id.c, id.h = fence[1] or nil, fence[2] or nil
    if v2 and v2.state == 'active' then id.m, id.f, id.a = m_of(v2), v2.fixed, v2.attached and '1' or nil end
    id.v2 = (text ~= nil and text ~= false and text ~= TOMBSTONE) or id.c ~= nil or id.h ~= nil
    id.fresh = text == nil or text == false
  end
  if not numbers_intact(id) then
    id.status = 'corrupt'
    if numbers_key ~= key then id.quarantine_key = numbers_key end
    return id
  end
  if id.m and id.m ~= '' then
    local r = record_of(id.m, id.f, id.a)
    if not r or r.state ~= 'active' or (identity and s_find(r.fixed, identity, 1, true) ~= 1) then
      id.status = 'corrupt'
      return id
    end
    id.r = r
    id.status = 'active'
  else
    id.status = 'none'
  end
  return id
end

-- copies a corrupt identity hash for an operator (once) and leaves it in place: every call on it fails closed
local function quarantine(id)
  local q = id.base .. 'quarantine:' .. id.digest
  if r_call('EXISTS', q) == 0 then
    local source = id.quarantine_key or id.key
    local dump = r_call('DUMP', source)
    if dump then r_call('SET', q, dump) end
    if id.quarantine_key then r_call('PERSIST', source) end
  end
end

-- the fields a writer adds so that the identity hash is complete and current: the epoch stamp, and on the first
-- write of a v2 or new identity the tombstone that makes v2 processes refuse it (one key, once per identity)
local function stamp_fields(id, out)
  local node = current_node()
  if id.e ~= node then -- the stamp is written when it changes (a stamp equal to this node's is this node's already)
    out[#out + 1] = 'e'
    out[#out + 1] = node
    id.e = node
  end
  if id.fresh or id.v2 then
    r_call('SET', id.base .. 'lease:' .. id.digest, TOMBSTONE)
    if id.v2 then -- an identity converted from storage v2: its acquires' v2 idempotency keys are looked up too
      out[#out + 1] = 'v'
      out[#out + 1] = '2'
      id.from_v2 = '2'
    end
    id.fresh, id.v2 = false, false
    -- the first write of an identity read from storage v2 carries everything read there into the v3 hash
    local has = {}
    for i = 1, #out, 2 do has[out[i]] = true end
    for _, field in ipairs({ 'm', 'f', 'a', 'c', 'h' }) do
      if id[field] and not has[field] then out[#out + 1] = field; out[#out + 1] = id[field] end
    end
  end
  return out
end

-- the attached keys of an ended lease (lease id, token) (attach.lua): up to ATTACH_INLINE are deleted here; a larger
-- set is renamed to att-ended:<lease id>:<token> and queued on the program's att-ended list, whose keys the sweep
-- deletes ATTACH_CHUNK per call (so no call blocks the server for a whole set). Either way the ending is atomic for
-- readers: every read checks the owning lease, which has ended in this very call, so none of the set is visible
-- from now on, and a successor's put of the same name reclaims the key. Returns how many keys were deleted here.
-- Conditional on lease id and token by construction: a successor's keys live under its own att key.
local function delete_attached(base, lease_id, token)
  local att = base .. 'att:' .. lease_id .. ':' .. token
  local n = r_call('HLEN', att)
  if n == 0 then return 0 end
  if n <= ATTACH_INLINE then
    local names = r_call('HKEYS', att)
    local kvs = {}
    for j = 1, #names do kvs[j] = base .. 'kv:' .. names[j] end
    r_call('UNLINK', unpack(kvs))
    r_call('UNLINK', att)
    return n
  end
  local ended = base .. 'att-ended:' .. lease_id .. ':' .. token
  local life = r_call('PTTL', att)
  r_call('RENAME', att, ended)
  local list = base .. 'att-ended'
  -- the list lives as long as its longest entry (each entry's keys expire by themselves too)
  if r_call('RPUSH', list, ended) == 1 then r_call('PEXPIRE', list, life)
  else r_call('PEXPIRE', list, life, 'GT') end
  return 0
end

-- records a lease's terminal state where its id resolves: byte 2 of its acquire's result (v3 lease ids; TTL kept),
-- or its v2 lid key. must_exist: the lease may have outlived its acquire's result (an expiry found late)
local function mark_terminal(base, lease_id, state, digest, p, must_exist)
  local key = acquire_result_key(base, lease_id)
  if key then
    if not must_exist or r_call('EXISTS', key) == 1 then r_call('SETRANGE', key, 1, STATE_BYTES[state]) end
  else
    r_call('SET', base .. 'lid:' .. lease_id, digest .. SEP .. state, 'PX', p.retention_text)
  end
end

-- the history ring's fields, t0..t15 (HISTORY_SLOTS)
local RING = { 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 't10', 't11', 't12', 't13', 't14', 't15' }
-- the ring's slot numbers as text (n, the next slot)
local SLOTS = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15' }

-- ends the active lease of id: the record cleared and a terminal entry written into the history ring in one HSET
-- (with the epoch stamp), the lease's terminal state recorded, the expiry queue entry removed, the attached keys
-- deleted. Never touches the fencing counter. A lease found expired outside the sweeper (reported = nil) is also
-- queued on the expired outbox, so that exactly one sweep call reports and audits it. Returns the number of attached
-- keys deleted and the ended record table (its state the terminal one; encode gives the wire form).
-- A release calls it after its idempotency claim, so the HSET is the first write and nothing before it fails on
-- stored data: n was checked by load_identity (numbers_intact), the key is the hash load_identity read, the lease id
-- is the holder's (release) or the expected one (administer; elsewhere a fixed part without one fails the call here,
-- before any write, and no claim precedes). What follows the HSET only tidies around an end already recorded: the
-- attached keys come last, the one part kept under keys of their own (a value of another type there fails the call
-- after the end, which the claim then reports truly).
local function end_lease(id, p, state, now, reported)
  local r = id.r
  local lease_id = lease_id_of(r)
  r.state = state
  local slot = (id.n or '0') + 0
  if slot >= p.history_length then slot = 0 end
  local next_number = (slot + 1) % p.history_length
  local next_slot = SLOTS[next_number + 1] or fmt(next_number)
  local fields = { 'm', '', 'f', '', RING[slot + 1] or ('t' .. fmt(slot)),
    lease_id .. SEP .. r.token .. SEP .. state .. SEP .. fmt(now), 'n', next_slot }
  if id.a and id.a ~= '' then fields[#fields + 1] = 'a'; fields[#fields + 1] = '' end
  r_call('HSET', id.key, unpack(stamp_fields(id, fields)))
  id.n, id.a = next_slot, nil
  mark_terminal(id.base, lease_id, state, id.digest, p, state == 'expired')
  r_call('ZREM', id.base .. 'idx:expiry', id.digest)
  if state == 'expired' and not reported then
    local outbox = id.base .. 'expired'
    if r_call('LPUSH', outbox, id.digest .. SEP .. encode(r)) > EXPIRED_OUTBOX_LENGTH then
      r_call('LTRIM', outbox, '0', EXPIRED_OUTBOX_LAST)
    end
    r_call('PEXPIRE', outbox, p.history_ms_text)
  end
  id.r, id.m, id.f, id.status = nil, '', '', 'none'
  local deleted = 0
  if r.attached then deleted = delete_attached(id.base, lease_id, r.token) end
  return deleted, r
end

-- the decision an administrative call names (administer, recover: its last three arguments, built by the client
-- from the audit layer's decision, io.starintel.lease.audit.internal.AdminDecision): { id = decision id,
-- correlation = the request's correlation id ('' = none), started = the operation's start, epoch ms ('' = unknown) }
local function decision_of(id, correlation, started)
  return { id = id or '', correlation = correlation or '', started = started or '' }
end

-- an audit stream entry of an administrative or recovery decision: the fields of core's AuditEvent, with its names
-- and in its order (AuditEvent.toFields: what the Java sink writes). latency_ms = backend time - the decision's
-- start (at least 0; the synchronous event of the same decision computes the same), left out when the start is
-- unknown; correlation_id left out when there is none; decision_id always.
local function audit_entry(audit_key, length, now, event_type, request_id, decision, principal, credential,
    r_or_identity, lease_id, token, previous, resulting, code, reason)
  local c = split(r_or_identity)
  local f = { 'event_type', event_type, 'backend_time', ms_to_iso(now) }
  local started = decision.started
  if started ~= '' and s_find(started, '^%d+$') then
    local latency = now - started
    f[#f + 1] = 'latency_ms'
    f[#f + 1] = fmt((latency > 0) and latency or 0)
  end
  f[#f + 1] = 'request_id'
  f[#f + 1] = request_id
  if decision.correlation ~= '' then
    f[#f + 1] = 'correlation_id'
    f[#f + 1] = decision.correlation
  end
  local rest = { 'decision_id', decision.id,
    'principal_class', 'administrator', 'principal_id', principal, 'credential_id', credential,
    'tenant_id', c[1], 'program_id', c[2], 'target_namespace', c[3], 'target_id', c[4], 'actor_name', c[5],
    'workflow_name', c[6], 'operation_class', c[7], 'lease_id', lease_id, 'fencing_token', token,
    'previous_state', previous, 'resulting_state', resulting, 'result_code', code, 'retryable', 'false',
    'backend_health', 'ok', 'reason', reason }
  for i = 1, #rest do f[#f + 1] = rest[i] end
  r_call('XADD', audit_key, 'MAXLEN', '~', length, '*', unpack(f))
end

-- revokes the active lease of an identity whose state was written on another node (automatic failover recovery):
-- audited under the recovery principal, then ended as revoked (the HSET stamps this node). The call that met the
-- lease carries no admin decision: the entry's decision id is dec_recovery_<lease id> (a lease is revoked once), it
-- has no correlation id and no latency (no request asked for this decision; the call's own start is not an argument)
local function revoke_foreign(id, p, now, principal, audit_key, audit_length, request_id)
  local lease_id = lease_id_of(id.r)
  audit_entry(audit_key, audit_length, now, 'target_lease_revoke', request_id,
    decision_of('dec_recovery_' .. lease_id, '', ''), principal, RECOVERY_CREDENTIAL, id.r.fixed, lease_id,
    id.r.token, 'active', 'revoked', 'lease_revoked', RECOVERY_REASON)
  end_lease(id, p, 'revoked', now, nil)
end

-- the identity of D at backend time, ready to decide on: loaded; a lease written on another node revoked first
-- (recovery ~= '') or refused (recovery_required); a lease past expires_at ended as expired. Returns id, or nil and
-- the refusal. corrupt identities are quarantined and refused.
local function prepare(key, base, digest, identity, p, now, recovery, audit_key, audit_length)
  local id = load_identity(key, base, digest, identity)
  if id.status == 'corrupt' then
    quarantine(id)
    return nil, refuse('lease_backend_unavailable', 'corrupt_record', now)
  end
  if id.status == 'active' and stamp_state(id.e) == 'foreign' then
    if not recovery or recovery == '' then
      return nil, refuse('lease_backend_unavailable', 'recovery_required', now, RECOVERY_RETRY_MS)
    end
    revoke_foreign(id, p, now, recovery, audit_key or (base .. 'audit'), audit_length or '100000', 'recovery')
  end
  if id.status == 'active' and now >= id.r.expires then
    end_lease(id, p, 'expired', now, nil)
  end
  return id, nil
end

-- ---- idempotency results -----------------------------------------------------------------------------------------

-- a v3 result: '3' state_byte SEP request_digest SEP code SEP decided SEP D SEP record (state_byte 'a' for an
-- acquire's result, updated when its lease ends; '-' for other operations). The request digest is kept to its first
-- 22 characters (132 bits: enough to tell a reused request id's other content). D: an acquire's identity (a lease id
-- resolves through it), '' otherwise. record: the wire form, or for a renewal or release of a v3 lease the compact
-- form (compact_record) whose fixed part replay takes from the lease itself; record_rest, when given, follows record
-- (a record passed in two parts is concatenated once, here).
local DIGEST_KEPT = 22
local function result_text(state_byte, request_digest, code, decided, digest, record, record_rest)
  return '3' .. state_byte .. SEP .. s_sub(request_digest, 1, DIGEST_KEPT) .. SEP .. code .. SEP .. decided .. SEP
    .. digest .. SEP .. (record or '') .. (record_rest or '')
end

-- the stored record of a renewal or release: '@' m SEP lease_id for a v3 lease (its fixed part is the active
-- record's, or its acquire result's, which outlives it: both are kept for the retention), the wire form otherwise
local function compact_record(r, lease_id, base)
  if acquire_result_key(base, lease_id) then return '@' .. r.state .. tail_of(r) .. SEP .. lease_id end
  return encode(r)
end

-- stores the result of a mutation unless the request id already has one, in one command (SET NX GET): returns the
-- stored result when there was one (false otherwise): the caller then replays it and mutates nothing
local function claim(key, text, p, keep_text)
  return r_pcall('SET', key, text, 'NX', 'GET', 'PX', keep_text or p.retention_text)
end

-- how long the result of a renewal or release of the active lease r is kept (ms, text): until the lease's own
-- maximum lifetime has passed plus the client retry window (contract: idempotency records outlive the maximum lease
-- lifetime and the retry window), never longer than the policy's retention; the policy's retention when the policy
-- text carries no retry window. The acquire's result (the lease id's resolution) always keeps the whole retention.
local function lease_keep(r, p, now)
  if not p.retry then return nil end
  local keep = r.acquired + r.lifetime + p.retry - now
  if keep < p.retry then keep = p.retry end
  if keep > p.retention then return nil end
  return fmt(keep)
end

local function remember(key, text, p)
  r_call('SET', key, text, 'PX', p.retention_text)
end

-- the history ring's entry of lease_id (lease_id SEP token SEP state SEP ended_ms), or nil
local function ring_entry(id, lease_id)
  local ring = r_call('HMGET', id.key, unpack(RING))
  local prefix = lease_id .. SEP
  for i = 1, HISTORY_SLOTS do
    local entry = ring[i]
    if entry and s_sub(entry, 1, #prefix) == prefix then return entry end
  end
  return nil
end

-- the record a v3 lease id was granted with (its acquire's result, kept for the idempotency retention: longer than
-- any lease lives), that result's key and the identity digest D it was granted for; nil for a v2 lease id or when
-- the result is gone. The key is the program's, not the identity's: whoever asks about one identity compares D.
local function acquire_record(base, lease_id)
  local key = acquire_result_key(base, lease_id)
  local text = key and r_call('GET', key)
  local digest, record
  if text then digest, record = s_match(text, '^3.\31[^\31]*\31[^\31]*\31[^\31]*\31([^\31]*)\31(.*)$') end
  local r = record and decode(record)
  if r and lease_id_of(r) == lease_id then return r, key, digest end
  return nil
end

-- the lease's state now: active, its terminal state from its acquire's result (v3) or lid key (v2), from the
-- history ring or the v2 history, or expired (nothing else ends a lease silently)
local function state_of(id, lease_id)
  if id.r and lease_id_of(id.r) == lease_id then return 'active' end
  local key = acquire_result_key(id.base, lease_id)
  if key then
    local text = r_call('GET', key)
    if text then
      local state = BYTE_STATES[s_sub(text, 2, 2)]
      if state and state ~= 'active' then return state end
    end
  else
    local evidence = r_call('GET', id.base .. 'lid:' .. lease_id)
    if evidence then
      local state = s_match(evidence, '\31(%a+)$')
      if state then return state end
    end
  end
  local entry = ring_entry(id, lease_id)
  if entry then return s_match(entry, '^[^\31]*\31[^\31]*\31(%a+)') end
  for _, entry in ipairs(r_call('LRANGE', id.base .. 'hist:' .. id.digest, 0, -1)) do
    local old = decode(entry)
    if old and lease_id_of(old) == lease_id then return old.state end
  end
  return 'expired'
end

-- the wire form of a compact stored record: its mutable part with the fixed part of its lease, from the active
-- record or the lease's acquire result (whose retention the replay refreshes too); nil when neither has it
local function full_record(id, p, compact)
  local m, lease_id = s_match(compact, '^@(.*)\31([^\31]*)$')
  if not m then return nil end
  if id.r and lease_id_of(id.r) == lease_id then return '2\31' .. m .. SEP .. id.r.fixed end
  local r, key = acquire_record(id.base, lease_id)
  if not r then return nil end
  r_call('PEXPIRE', key, p.retention_text)
  return '2\31' .. m .. SEP .. r.fixed
end

-- the stored result of key: nil when none, the idempotency_conflict refusal for another digest, else the replay
-- (the stored result marked replayed, with the lease's current state). stored: the value when already read. The
-- replay writes once (the result's retention refreshed), so that the replica wait behind the call covers the
-- result it repeats.
local function replay(id, p, now, key, request_digest, stored)
  if stored == nil then stored = r_call('GET', key) end
  if not stored then return nil end
  -- a claim's error reply: the key holds another type (nothing was written)
  if type(stored) ~= 'string' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  local sdigest, code, decided, sd, record
  if s_byte(stored, 1) == 51 and s_byte(stored, 3) == 31 then -- '3' state SEP: v3
    sdigest, code, decided, sd, record = s_match(stored,
      '^3.\31([^\31]*)\31([^\31]*)\31([^\31]*)\31([^\31]*)\31(.*)$')
  else -- storage v2: digest SEP code SEP decided SEP record
    sdigest, code, decided, record = s_match(stored, '^([^\31]*)\31([^\31]*)\31([^\31]*)\31(.*)$')
  end
  if not sdigest then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if request_digest and sdigest ~= s_sub(request_digest, 1, #sdigest) then
    return refuse('idempotency_conflict', 'none', now)
  end
  -- an acquire's result names its identity (its key is program-wide): another identity's is none of this one's
  if sd and sd ~= '' and sd ~= id.digest then
    if request_digest then return refuse('idempotency_conflict', 'none', now) end
    return nil
  end
  r_call('PEXPIRE', key, p.retention_text)
  if s_byte(record, 1) == 64 then -- '@': compact
    record = full_record(id, p, record)
    if not record then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  end
  local current = nil
  if record ~= '' then
    local r = decode(record)
    if r then current = state_of(id, lease_id_of(r)) end
  end
  return reply(code, 'none', decided + 0, 0, current, true, record)
end

-- the start of every single-lease change: backend time (unless the caller read it), the policy, the deadline rule
-- (ARGV[1] deadline, ARGV[3] policy), the identity's base (KEYS[1] l:D, ARGV[2] digest). Returns p, base, now, or a
-- refusal as the fourth value.
local function begin(keys, args, now)
  now = now or now_ms()
  local p = policy(args[3])
  local late = deadline_refusal(args[1], now, p.max_deadline)
  if late then return nil, nil, now, refuse(late, 'none', now) end
  return p, base_of_identity_key(keys[1], args[2]), now, nil
end

-- ---- acquire -----------------------------------------------------------------------------------------------------

-- acquire: KEYS l:D, idem:H (an acquire's key is the request id's program-wide: no lock key in its hash, so a
-- request id reused on another identity meets the first one's result, whose request digest differs, and is
-- idempotency_conflict; IdentityKeys#idempotency), idx:program, idx:expiry, audit, the request's storage v2
-- idempotency key (read only for an identity from storage v2). ARGV deadline, digest, policy, request digest, identity,
-- effective TTL (min(ttl, maximum lifetime), ms), times tail (SEP ttl SEP maximum_lifetime), fixed rest (the fixed
-- part after the identity, lease id first), maximum active leases of the program ('' = none), recovery,
-- audit_length.
-- Replies: a fresh acquire { 'lease_acquired', decided_ms, token }; lease_conflict (retry_after_ms = time to expiry),
-- lease_rate_limited (active_lease_limit_reached: idx:expiry holds the limit, its due entries not counted),
-- idempotency_conflict, deadline_exceeded, invalid_lease_request, lease_backend_unavailable with corrupt_record |
-- fencing_counter_exhausted | backend_clock_behind | recovery_required; a replay is the single-lease reply.
-- Token rule (core: FencingTokenRule): max(counter + 1, backend_ms * 1024), below 2^53 - 1; never reset.
local function acquire(keys, args, now)
  local p, base, late
  p, base, now, late = begin(keys, args, now)
  if late then return late end
  local digest = args[2]
  local id, refused = prepare(keys[1], base, digest, args[5], p, now, args[10], keys[5], args[11])
  if refused then return refused end
  if id.v2 or id.from_v2 then
    -- an identity from storage v2: a v2 acquire's result is kept under its v2 key (KEYS[6], the lock key in its
    -- hash) for the retention, and a retry of that request replays it
    local legacy = replay(id, p, now, keys[6], args[4])
    if legacy then return legacy end
  end
  if id.status == 'active' then
    return replay(id, p, now, keys[2], args[4]) or refuse('lease_conflict', 'none', now, id.r.expires - now)
  end
  if args[9] ~= '' then
    local limit = args[9] + 0
    local active = r_call('ZCARD', keys[4])
    if active >= limit then active = active - r_call('ZCOUNT', keys[4], '-inf', fmt(now)) end
    if active >= limit then
      return replay(id, p, now, keys[2], args[4]) or refuse('lease_rate_limited', 'active_lease_limit_reached', now)
    end
  end
  local counter = id.c and (id.c + 0) or 0 -- decimal digits (load_identity)
  if counter > (now + p.skew) * TOKENS_PER_MS then
    return replay(id, p, now, keys[2], args[4]) or refuse('lease_backend_unavailable', 'backend_clock_behind', now)
  end
  local token = math.max(counter + 1, now * TOKENS_PER_MS)
  if token >= MAX_TOKEN then
    return replay(id, p, now, keys[2], args[4])
      or refuse('lease_backend_unavailable', 'fencing_counter_exhausted', now)
  end
  local token_text, now_text = fmt(token), fmt(now)
  local expires_text = fmt(now + args[6])
  local m = 'active\31' .. token_text .. SEP .. now_text .. SEP .. now_text .. SEP .. expires_text .. args[7]
  local f = args[5] .. args[8]
  local stored = claim(keys[2], result_text('a', args[4], 'lease_acquired', now_text, digest, '2\31' .. m .. SEP, f),
    p)
  if stored then return replay(id, p, now, keys[2], args[4], stored) end
  local fields = { 'm', m, 'f', f, 'c', token_text }
  if id.a and id.a ~= '' then fields[#fields + 1] = 'a'; fields[#fields + 1] = '' end -- a new lease has no attached keys
  if not id.p then fields[#fields + 1] = 'p'; fields[#fields + 1] = '1' end
  r_call('HSET', keys[1], unpack(stamp_fields(id, fields)))
  if not id.p then r_call('ZADD', keys[3], '0', digest) end
  r_call('ZADD', keys[4], expires_text, digest)
  return { 'lease_acquired', now_text, token_text }
end

-- ---- renew -------------------------------------------------------------------------------------------------------

-- the identity held by exactly this holder, or the refusal (corrupt_record, recovery_required, lease_lost)
local function load_held(key, base, digest, holder, token, p, now, recovery, audit_key, audit_length)
  local identity, lease_id = holder_parts(holder)
  local id, refused = prepare(key, base, digest, identity, p, now, recovery, audit_key, audit_length)
  if refused then return nil, refused end
  if id.status ~= 'active' or not is_holder(id.r, holder, token) then
    return id, refuse('lease_lost', 'stale_lease', now)
  end
  -- the holder is a prefix of the record's fixed part, so its lease id is the record's (lease_id_of need not scan)
  id.r.lease_id = lease_id
  return id, nil
end

-- a renewal's new TTL argument: a positive number of ms, or nil ('' or absent) to keep the record's TTL
local function new_ttl(arg)
  local ttl = tonumber(arg or '')
  if ttl and ttl > 0 then return ttl end
  return nil
end

-- renews one held lease; returns the reply. keys: l:D, idem:H, idx:expiry (+ audit for the recovery entry)
local function renew_one(key, base, digest, idem, expiry, audit_key, p, now, request_digest, holder, token, ttl,
    recovery, audit_length)
  local id, refused = load_held(key, base, digest, holder, token, p, now, recovery, audit_key, audit_length)
  if refused then
    return (id and replay(id, p, now, idem, request_digest)) or refused
  end
  local r = id.r
  if ttl then r.ttl = fmt(ttl) end
  r.renewed = now
  r.expires = math.min(now + r.ttl, r.acquired + r.lifetime)
  r.tail = nil
  local m = m_of(r)
  local stored = claim(idem, result_text('-', request_digest, 'lease_renewed', fmt(now), '',
    compact_record(r, lease_id_of(r), base)), p, lease_keep(r, p, now))
  if stored then return replay(id, p, now, idem, request_digest, stored) end
  r_call('HSET', key, unpack(stamp_fields(id, { 'm', m })))
  r_call('ZADD', expiry, fmt(r.expires), digest)
  return record_reply('lease_renewed', fmt(now), r)
end

-- renew: KEYS l:D, idem:H, idx:expiry, audit. ARGV deadline, digest, policy, request digest, holder, token, lease_id,
-- ttl (the new TTL in ms, checked against policy by the caller and part of the request digest; '' = keep), recovery,
-- audit_length. Never changes the token, never passes the maximum lifetime. Codes: lease_renewed (record),
-- lease_lost (stale_lease), idempotency_conflict, deadline_exceeded, invalid_lease_request,
-- lease_backend_unavailable (corrupt_record | recovery_required).
local function renew(keys, args, now)
  local p, base, late
  p, base, now, late = begin(keys, args, now)
  if late then return late end
  return renew_one(keys[1], base, args[2], keys[2], keys[3], keys[4], p, now, args[4], args[5], args[6],
    new_ttl(args[8]), args[9], args[10])
end

-- renew_batch: KEYS idx:expiry, audit, then l:D and idem:H of each lease, in order (all in one program: one slot).
-- ARGV base, policy, count n, recovery, audit_length, then n groups of 6: deadline, digest, request digest, holder,
-- token, ttl ('' = keep). Reply: a flat list of n single-lease replies, each prefixed by its length. A lease whose
-- deadline has passed at backend time is deadline_exceeded without mutation, like a single renew.
local function renew_batch(keys, args)
  local now = now_ms()
  local base, p, n = args[1], policy(args[2]), args[3] + 0
  local out = {}
  for i = 1, n do
    local a = 5 + (i - 1) * 6
    local late = deadline_refusal(args[a + 1], now, p.max_deadline)
    local one
    if late then one = refuse(late, 'none', now)
    else
      one = renew_one(keys[1 + 2 * i], base, args[a + 2], keys[2 + 2 * i], keys[1], keys[2], p, now, args[a + 3],
        args[a + 4], args[a + 5], new_ttl(args[a + 6]), args[4], args[5])
    end
    out[#out + 1] = fmt(#one)
    for _, v in ipairs(one) do out[#out + 1] = v end
  end
  return out
end

-- ---- release and administrative endings ----------------------------------------------------------------------------

-- release: KEYS l:D, idem:H, idx:expiry, audit. ARGV deadline, digest, policy, request digest, holder, token,
-- lease_id, recovery, audit_length. Compare-and-delete with terminal evidence. Replies: { 'lease_released',
-- decided_ms, record } (the ended record), lease_lost (stale_lease), idempotency_conflict, deadline_exceeded,
-- invalid_lease_request, lease_backend_unavailable (corrupt_record | recovery_required); a replay is the
-- single-lease reply with the stored record.
local function release(keys, args, now)
  local p, base, late
  p, base, now, late = begin(keys, args, now)
  if late then return late end
  local digest = args[2]
  local id, refused = load_held(keys[1], base, digest, args[5], args[6], p, now, args[8], keys[4], args[9])
  if refused then
    return (id and replay(id, p, now, keys[2], args[4])) or refused
  end
  local r = id.r
  r.state = 'released'
  local now_text = fmt(now)
  local stored = claim(keys[2], result_text('-', args[4], 'lease_released', now_text, '',
    compact_record(r, args[7], base)), p, lease_keep(r, p, now))
  r.state = 'active'
  if stored then return replay(id, p, now, keys[2], args[4], stored) end
  local _, ended = end_lease(id, p, 'released', now, nil)
  return record_reply('lease_released', now_text, ended)
end

-- administer: KEYS l:D, idem:H, audit, idx:expiry. ARGV deadline, digest, policy, request digest, identity,
-- operation (force_release | revoke), expected lease_id, expected token, admin principal, admin credential, reason,
-- request_id, audit_length, recovery, correlation id ('' = none), decision id, decision start (epoch ms). The audit
-- event is written in this function, with the decision's ids and latency (decision_of).
-- Codes: lease_released | lease_revoked (record), lease_lost (stale_lease), idempotency_conflict,
-- deadline_exceeded, invalid_lease_request, lease_backend_unavailable (corrupt_record | recovery_required).
local function administer(keys, args, now)
  local p, base, late
  p, base, now, late = begin(keys, args, now)
  if late then return late end
  local digest = args[2]
  local id, refused = prepare(keys[1], base, digest, args[5], p, now, args[14], keys[3], args[13])
  if refused then return refused end
  local early = replay(id, p, now, keys[2], args[4])
  if early then return early end
  local revoke = args[6] == 'revoke'
  local code, state, previous = 'lease_lost', nil, 'none'
  if id.status == 'active' then previous = 'active' end
  if id.status == 'active' and lease_id_of(id.r) == args[7] and id.r.token == args[8] then
    state = revoke and 'revoked' or 'released'
    code = revoke and 'lease_revoked' or 'lease_released'
  end
  audit_entry(keys[3], args[13], now, revoke and 'target_lease_revoke' or 'target_lease_force_release', args[12],
    decision_of(args[16], args[15], args[17]), args[9], args[10], args[5], args[7], args[8], previous,
    state or previous, code, args[11])
  if not state then return refuse('lease_lost', 'stale_lease', now) end
  local _, ended = end_lease(id, p, state, now, nil)
  local record = encode(ended)
  remember(keys[2], result_text('-', args[4], code, fmt(now), digest, record), p)
  return reply(code, 'none', now, 0, state, false, record)
end

-- ---- fenced-write authorization, inspection, resolution --------------------------------------------------------------

-- the fenced-write high-water mark of an identity (h: the highest token a fenced write was authorized with; raised
-- by authorize and by fence.lua's checkpoint, never lowered; decimal digits: load_identity) and whether token (text)
-- is refused by it: nil | 'token_below_high_water_mark'
local function below_mark(id, token)
  if id.h and token + 0 < id.h + 0 then return 'token_below_high_water_mark' end
  return nil
end

-- authorize: KEYS l:D, audit. ARGV deadline, digest, policy, holder, token, recovery, audit_length.
-- The exact holder must be the active, unexpired record and the token not below the high-water mark, which is
-- raised to it (always written: the replica wait behind the call covers the authorization).
-- Codes: lease_commit_authorized (record), lease_lost (token_below_high_water_mark | stale_lease),
-- deadline_exceeded, lease_backend_unavailable (corrupt_record | recovery_required).
local function authorize(keys, args, now)
  now = now or now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return refuse(late, 'none', now) end
  local p = policy(args[3])
  local base = base_of_identity_key(keys[1], args[2])
  local id, refused = load_held(keys[1], base, args[2], args[4], args[5], p, now, args[6], keys[2], args[7])
  local below = id and below_mark(id, args[5])
  if below then return refuse('lease_lost', below, now) end
  if refused then return refused end
  r_call('HSET', keys[1], unpack(stamp_fields(id, { 'h', args[5] })))
  return record_reply('lease_commit_authorized', fmt(now), id.r)
end

-- inspect: KEYS l:D, audit. ARGV deadline, digest, policy, identity, recovery, audit_length.
-- Codes: lease_inspected (record), lease_not_found, deadline_exceeded, lease_backend_unavailable (corrupt_record |
-- recovery_required).
local function inspect(keys, args, now)
  now = now or now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return refuse(late, 'none', now) end
  local base = base_of_identity_key(keys[1], args[2])
  local id, refused = prepare(keys[1], base, args[2], args[4], policy(args[3]), now, args[5], keys[2], args[6])
  if refused then return refused end
  if id.status ~= 'active' then return refuse('lease_not_found', 'none', now) end
  return reply('lease_inspected', 'none', now, 0, 'active', false, encode(id.r))
end

-- inspect_by_lease_id: KEYS the lease's acquire result idem:H (v3 lease ids) or its lid key (v2 lease ids), audit.
-- ARGV deadline, base, policy, lease_id, recovery, audit_length. The key lives in the caller's program (base), so a
-- lease of another program is simply not found. Codes: lease_inspected, lease_not_found, deadline_exceeded,
-- lease_backend_unavailable (corrupt_record | recovery_required).
local function inspect_by_lease_id(keys, args, now)
  now = now or now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return refuse(late, 'none', now) end
  local base, lease_id = args[2], args[4]
  local text = r_call('GET', keys[1])
  if not text then return refuse('lease_not_found', 'none', now) end
  local digest
  if acquire_result_key(base, lease_id) then
    digest = s_match(text, '^3a\31[^\31]*\31[^\31]*\31[^\31]*\31([^\31]+)\31')
  elseif not s_find(text, SEP, 1, true) then
    digest = text -- a v2 lid key of an active lease
  end
  if not digest then return refuse('lease_not_found', 'none', now) end
  local id, refused = prepare(identity_key(base, digest), base, digest, nil, policy(args[3]), now, args[5], keys[2],
    args[6])
  if refused then return refused end
  if id.status ~= 'active' or lease_id_of(id.r) ~= lease_id then return refuse('lease_not_found', 'none', now) end
  return reply('lease_inspected', 'none', now, 0, 'active', false, encode(id.r))
end

-- resolve: KEYS l:D, idem:H, audit. ARGV deadline, digest, policy, identity, recovery, audit_length.
-- The stored result marked replayed with the lease's current state (a lease written on another node is revoked
-- first, or refused: recovery_required), or lease_not_found; deadline_exceeded.
local function resolve(keys, args, now)
  now = now or now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return refuse(late, 'none', now) end
  local p = policy(args[3])
  local id, refused = prepare(keys[1], base_of_identity_key(keys[1], args[2]), args[2], args[4], p, now, args[5],
    keys[3], args[6])
  if refused then return refused end
  return replay(id, p, now, keys[2], nil) or refuse('lease_not_found', 'none', now)
end

-- ---- program-wide: list and recover --------------------------------------------------------------------------------

-- list: KEYS idx:program, audit. ARGV deadline, base, after (last digest returned, or ''), page size, scan limit,
-- filter (program | owner | target), owner principal or target namespace, target id, policy, recovery,
-- audit_length. Reply: { code, reason, decided_ms, next position (digest) or '', corrupt count, D SEP record... } in
-- key-digest order. Identities without an active lease are pruned from the index as they are met (the index is
-- written once per identity, by its first acquire); corrupt identities are counted, never returned.
local function list(keys, args, now)
  now = now or now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return { late, 'none', fmt(now), '', '0' } end
  local base, page_size, limit, filter = args[2], args[4] + 0, args[5] + 0, args[6]
  local p = policy(args[9])
  local start = (args[3] == '') and '-' or ('(' .. args[3])
  local out, scanned, corrupt = {}, 0, 0
  local exhausted = false
  while #out <= page_size and scanned < limit and not exhausted do
    local batch = math.min(page_size + 1, limit - scanned)
    local members = r_call('ZRANGEBYLEX', keys[1], start, '+', 'LIMIT', 0, batch)
    if #members < batch then exhausted = true end
    for _, digest in ipairs(members) do
      if #out > page_size then break end
      scanned = scanned + 1
      start = '(' .. digest
      local id, refused = prepare(identity_key(base, digest), base, digest, nil, p, now, args[10], keys[2], args[11])
      if refused then
        if refused[2] == 'recovery_required' then
          return { 'lease_backend_unavailable', 'recovery_required', fmt(now), '', '0' }
        end
        corrupt = corrupt + 1
      elseif id.status == 'none' then
        r_call('ZREM', keys[1], digest)
        r_call('HDEL', id.key, 'p')
      else
        local match = filter == 'program'
        if not match then
          local parts = split(id.r.fixed)
          match = (filter == 'owner' and parts[9] == args[7])
            or (filter == 'target' and parts[3] == args[7] and parts[4] == args[8])
        end
        if match then out[#out + 1] = digest .. SEP .. encode(id.r) end
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
-- request id, policy, audit_length, mode ('force': revoke every active lease, a restore; 'if_foreign': only those
-- written on another node, after a promotion or restart), after (the last digest of the previous call, or ''),
-- correlation id ('' = none), decision id, decision start (epoch ms): every entry of one recovery names its decision.
-- Visits up to batch identities of the program's index from after, revokes as the mode says (an audit entry each)
-- and stamps this node on each visited identity. Reply: { code ('lease_revoked' | 'deadline_exceeded'), decided_ms,
-- revoked in this call, next position ('' when the index is done) }
local function recover(keys, args)
  local now = now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return { late, fmt(now), '0', '' } end
  local base, p, force = args[2], policy(args[8]), args[10] == 'force'
  local start = (args[11] == '') and '-' or ('(' .. args[11])
  local members = r_call('ZRANGEBYLEX', keys[1], start, '+', 'LIMIT', 0, args[3] + 0)
  local revoked = 0
  local decision = decision_of(args[13], args[12], args[14])
  for _, digest in ipairs(members) do
    local id = load_identity(identity_key(base, digest), base, digest, nil)
    if id.status == 'active' and (force or stamp_state(id.e) == 'foreign') then
      audit_entry(keys[2], args[9], now, 'target_lease_revoke', args[7], decision, args[4], args[5], id.r.fixed,
        lease_id_of(id.r), id.r.token, 'active', 'revoked', 'lease_revoked', args[6])
      end_lease(id, p, 'revoked', now, nil)
      revoked = revoked + 1
    elseif id.status == 'active' and id.e ~= current_node() then
      r_call('HSET', id.key, unpack(stamp_fields(id, {})))
    end
  end
  local next_position = (#members < args[3] + 0) and '' or members[#members]
  return { 'lease_revoked', fmt(now), fmt(revoked), next_position }
end

-- ---- group commit ----------------------------------------------------------------------------------------------------

-- batch: concurrent calls of one program (one slot) in one atomic call, each with its own deadline check, idempotency
-- claim, typed reply and linearization point, in the order given (io.starintel.lease.store.redis.GroupCommit sends
-- it when a call of the program is already in flight). KEYS: every item's keys, in order. ARGV: n, then per item its
-- function (acquire | renew | release | authorize), key count, argument count and arguments. Reply: a flat list of n
-- replies, each prefixed by its length; an item that raised an error (it may have written part of its effects) is
-- { 'item_error' }. One TIME for the whole batch.
local BATCHABLE = { acquire = acquire, renew = renew, release = release, authorize = authorize }
local function batch(keys, args)
  local now = now_ms()
  local n = args[1] + 0
  local out = {}
  local k, a = 1, 2
  for _ = 1, n do
    local f, nk, na = BATCHABLE[args[a]], args[a + 1] + 0, args[a + 2] + 0
    a = a + 3
    local item_keys, item_args = {}, {}
    for j = 1, nk do item_keys[j] = keys[k]; k = k + 1 end
    for j = 1, na do item_args[j] = args[a]; a = a + 1 end
    local ok, one = false, nil
    if f then ok, one = pcall(f, item_keys, item_args, now) end
    if not ok or type(one) ~= 'table' then one = { 'item_error' } end
    out[#out + 1] = fmt(#one)
    for _, v in ipairs(one) do out[#out + 1] = v end
  end
  return out
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
register('batch', batch)
