-- sweep.lua: the expiry sweeper of the function library starintel_lease_v3 (follows prelude.lua and lease.lua; it
-- uses their policy, load_identity, end_lease and revoke_foreign). One call ends at most `limit` leases of one program
-- whose expires_at has passed at backend time (TIME, read once), each through lease.lua's end_lease(..., 'expired')
-- -- the one home for ending a lease, so a swept lease gets exactly the terminal evidence of any other ending.
-- The Java side is io.starintel.lease.store.redis.RedisLeaseStore#sweepExpired; arguments by ProgramArguments.sweep.
--
-- sweep: KEYS idx:expiry, audit (of one program: one slot). ARGV deadline (epoch ms), base, policy, limit (1..1000),
-- recovery, audit_length. First drains up to limit entries of the expired outbox ('expired': leases that another
-- operation found expired and ended first, each popped, so reported, by exactly one call), then ends due leases up
-- to the rest of the limit.
-- Reply (all strings): { code, decided_ms, scanned (outbox entries + queue entries), attached_keys_deleted,
--   more '0'|'1' (due entries or outbox entries left), active_leases, entry... } with code 'swept' |
--   'deadline_exceeded' (then nothing else was read or written, and the counts are 0); entry = D SEP record
--   (state expired) of each lease this call ended.
-- Safe with many sweepers at once (contract: "all cleanup is conditional on lease_id and fencing_token"): every queue
-- entry is re-checked against the stored record inside this call, so a lease is ended -- and reported -- by exactly
-- one call; a renewed lease (queue entry behind its record) is re-queued at its live expiry, never ended; an entry
-- without an active lease is dropped; a corrupt identity is quarantined (prepare) and dropped from the queue; a lease
-- written on another node is revoked first (automatic recovery) or left for the recovery (manual).
-- active_leases = ZCARD idx:expiry - entries still due: O(log N), the same count acquire's limit check uses.

local function sweep(keys, args)
  local now = now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return { late, fmt(now), '0', '0', '0', '0' } end
  local base, p, limit = args[2], policy(args[3]), args[4] + 0
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
      out[#out + 1] = digest .. SEP .. ended
    elseif id.status == 'active' then
      r_call('ZADD', queue, fmt(id.r.expires), digest)
    else
      if id.status == 'corrupt' then quarantine(id) end
      r_call('ZREM', queue, digest)
    end
  end
  local left = r_call('ZCOUNT', queue, '-inf', fmt(now))
  local active = r_call('ZCARD', queue) - left
  local more = left > 0 or r_call('LLEN', base .. 'expired') > 0
  local reply = { 'swept', fmt(now), fmt(#drained + #due), fmt(attached), more and '1' or '0',
    fmt(math.max(active, 0)) }
  for _, entry in ipairs(out) do reply[#reply + 1] = entry end
  return reply
end

register('sweep', sweep)
