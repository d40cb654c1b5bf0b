-- sweep.lua: the expiry sweeper of the function library starintel_lease_v3 (follows prelude.lua and lease.lua; it
-- uses their policy, load_identity, end_lease and revoke_foreign). One call ends at most `limit` leases of one program
-- whose expires_at has passed at backend time (TIME, read once), each through lease.lua's end_lease(..., 'expired')
-- -- the one home for ending a lease, so a swept lease gets exactly the terminal evidence of any other ending.
-- The Java side is io.starintel.lease.store.redis.RedisLeaseStore#sweepExpired; arguments by ProgramArguments.sweep.
--
-- sweep: KEYS idx:expiry, audit (of one program: one slot). ARGV deadline (epoch ms), base, policy, limit (1..1000),
-- recovery, audit_length, claimant ('' = none), claim_ms. With a claimant, the call first claims the program's sweep
-- for claim_ms (B..'sweeper', SET NX PX; its own claim is extended): while another claimant holds it the call does
-- nothing and answers 'claimed', so sweepers on several instances share the programs instead of repeating each
-- other's calls. First drains up to limit entries of the expired outbox ('expired': leases that another
-- operation found expired and ended first, each popped, so reported, by exactly one call), then ends due leases up
-- to the rest of the limit.
-- Reply (all strings): { code, decided_ms, scanned (outbox entries + queue entries), attached_keys_deleted,
--   more '0'|'1' (due entries or outbox entries left), active_leases, next_due_ms (the earliest expiry still queued,
--   '' when none), entry... } with code 'swept' | 'claimed' | 'deadline_exceeded' (then nothing else was read or
--   written, and the counts are 0); entry = D SEP record (state expired) of each lease this call ended.
-- Safe with many sweepers at once (contract: "all cleanup is conditional on lease_id and fencing_token"): every queue
-- entry is re-checked against the stored record inside this call, so a lease is ended -- and reported -- by exactly
-- one call; a renewed lease (queue entry behind its record) is re-queued at its live expiry, never ended; an entry
-- without an active lease is dropped; a corrupt identity is quarantined (prepare) and dropped from the queue; a lease
-- written on another node is revoked first (automatic recovery) or left for the recovery (manual).
-- active_leases = ZCARD idx:expiry - entries still due: O(log N), the same count acquire's limit check uses.
-- Each call also deletes up to ATTACH_CHUNK attached keys of ended leases whose sets were too large to delete at their
-- ending (counted in attached_keys_deleted; more = '1' while such sets remain).

-- deletes up to budget attached keys of ended leases whose sets were too large to delete at their ending
-- (lease.lua's delete_attached queued them on the att-ended list); a key is deleted only while it still names the
-- ended lease as its owner (a successor may have reclaimed the name meanwhile). Returns the number deleted and
-- whether sets remain queued.
local function delete_ended_attachments(base, budget)
  local list = base .. 'att-ended'
  local deleted = 0
  while budget > 0 do
    local ended = r_call('LINDEX', list, 0)
    if not ended then return deleted, false end
    local lease_id, token = s_match(ended, 'att%-ended:(.*):(%d+)$')
    local fields = lease_id and r_call('HRANDFIELD', ended, budget) or {}
    if #fields == 0 then
      r_call('LPOP', list) -- done (or expired by itself)
      if lease_id then r_call('UNLINK', ended) end
    else
      local owner, kvs = lease_id .. SEP .. token, {}
      for _, k in ipairs(fields) do
        local kv = base .. 'kv:' .. k
        if r_call('HGET', kv, 'o') == owner then kvs[#kvs + 1] = kv end
      end
      if #kvs > 0 then r_call('UNLINK', unpack(kvs)) end
      r_call('HDEL', ended, unpack(fields))
      deleted, budget = deleted + #kvs, budget - #fields
    end
  end
  return deleted, r_call('EXISTS', list) == 1
end

local function sweep(keys, args)
  local now = now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return { late, fmt(now), '0', '0', '0', '0', '' } end
  local base, p, limit = args[2], policy(args[3]), args[4] + 0
  local claimant = args[7] or ''
  if claimant ~= '' then
    local claim = base .. 'sweeper'
    local holder = r_call('SET', claim, claimant, 'NX', 'PX', args[8], 'GET')
    if holder and holder ~= claimant then return { 'claimed', fmt(now), '0', '0', '0', '-1', '' } end
    if holder then r_call('PEXPIRE', claim, args[8]) end
  end
  local queue = keys[1]
  local out, attached = {}, 0
  local drained = r_call('RPOP', base .. 'expired', args[4])
  if not drained then drained = {} end
  for _, entry in ipairs(drained) do out[#out + 1] = entry end
  local due = {}
  if #drained < limit then
    due = r_call('ZRANGEBYSCORE', queue, '-inf', fmt(now), 'LIMIT', '0', fmt(limit - #drained))
  end
  for _, digest in ipairs(due) do
    local id = load_identity(identity_key(base, digest), base, digest, nil)
    if id.status == 'active' and stamp_state(id.e) == 'foreign' then
      if args[5] ~= '' then revoke_foreign(id, p, now, args[5], keys[2], args[6], 'recovery') end
    elseif id.status == 'active' and now >= id.r.expires then
      local deleted, ended = end_lease(id, p, 'expired', now, true)
      attached = attached + deleted
      out[#out + 1] = digest .. SEP .. encode(ended)
    elseif id.status == 'active' then
      r_call('ZADD', queue, fmt(id.r.expires), digest)
    else
      if id.status == 'corrupt' then quarantine(id) end
      r_call('ZREM', queue, digest)
    end
  end
  local chunk_deleted, sets_left = delete_ended_attachments(base, ATTACH_CHUNK)
  attached = attached + chunk_deleted
  local left = r_call('ZCOUNT', queue, '-inf', fmt(now))
  local active = r_call('ZCARD', queue) - left
  local more = left > 0 or sets_left or r_call('LLEN', base .. 'expired') > 0
  local first = r_call('ZRANGE', queue, '0', '0', 'WITHSCORES')
  local reply = { 'swept', fmt(now), fmt(#drained + #due), fmt(attached), more and '1' or '0',
    fmt(math.max(active, 0)), first[2] or '' }
  for _, entry in ipairs(out) do reply[#reply + 1] = entry end
  return reply
end

-- ---- the registry of programs with leases -------------------------------------------------------------------------
-- Key 'starintel:target-lease:v1:programs' (no hash tag: written and read by its own calls, never inside a program's
-- call): a sorted set of tenant SEP program, scored by the backend time at which a process last reported a lease
-- operation in it. The expiry sweeper reads it to sweep every program with leases, not only configured ones.

-- programs_touch: KEYS programs. ARGV deadline, member... Reply { 'touched', decided_ms }
local function programs_touch(keys, args)
  local now = now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return { late, fmt(now) } end
  local zadd = { 'ZADD', keys[1] }
  for i = 2, #args do zadd[#zadd + 1] = fmt(now); zadd[#zadd + 1] = args[i] end
  if #zadd > 2 then r_call(unpack(zadd)) end
  return { 'touched', fmt(now) }
end

-- programs_list: KEYS programs. ARGV deadline, horizon_ms, limit. Forgets programs not touched within horizon_ms (a
-- lease outlives its last touch by less: the caller's horizon covers the maximum lifetime), then answers
-- { 'listed', decided_ms, total, member... } with the limit most recently touched programs.
local function programs_list(keys, args)
  local now = now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return { late, fmt(now), '0' } end
  r_call('ZREMRANGEBYSCORE', keys[1], '-inf', '(' .. fmt(now - args[2]))
  local out = { 'listed', fmt(now), fmt(r_call('ZCARD', keys[1])) }
  for _, member in ipairs(r_call('ZRANGE', keys[1], '0', fmt(args[3] - 1), 'REV')) do out[#out + 1] = member end
  return out
end

register('sweep', sweep)
register('programs_touch', programs_touch)
register('programs_list', programs_list)
