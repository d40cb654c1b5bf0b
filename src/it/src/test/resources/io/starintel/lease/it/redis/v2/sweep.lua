-- sweep.lua: the expiry sweeper of the function library starintel_lease_v2 (follows prelude.lua and lease.lua; it
-- uses their policy, load_record, end_lease and fmt). One call ends at most `limit` leases of one program
-- whose expires_at has passed at backend time (TIME, read once), each through lease.lua's end_lease(..., 'expired')
-- -- the one home for ending a lease, so a swept lease gets exactly the terminal evidence of any other ending.
-- The Java side is io.starintel.lease.store.redis.RedisLeaseStore#sweepExpired; arguments by ProgramArguments.sweep.
--
-- sweep: KEYS idx:expiry, idx:program (of one program: one slot). ARGV deadline (epoch ms), base 'P{T}:', policy
-- (lease.lua's policy text), limit (1..1000). First drains up to limit entries of the expired outbox ('expired':
-- leases that another operation found expired and ended first -- any call on that identity --
-- each popped, so reported, by exactly one call), then ends due leases up to the rest of the limit.
-- Reply (all strings): { code, decided_ms, scanned (outbox entries + queue entries), attached_keys_deleted,
--   more '0'|'1' (due entries or outbox entries left), active_leases,
--   entry... } with code 'swept' | 'deadline_exceeded' (then nothing else was read or written, and the counts are 0);
--   entry = D \31 record (v2 string, state expired) of each lease this call ended.
-- Safe with many sweepers at once (contract: "all cleanup is conditional on lease_id and fencing_token"): every queue
-- entry is re-checked against the stored record inside this script, so a lease is ended -- and reported -- by exactly
-- one call; a renewed lease (queue entry behind its record) is re-queued at its live expiry, never ended; an entry
-- whose record is gone (physically reclaimed, or already ended) is dropped from both indexes; a corrupt record is
-- quarantined by load_record and dropped from the queue (it stays in idx:program: it still blocks its identity).
-- active_leases = ZCARD idx:program - entries still due: O(log N), the same count acquire's limit check uses.
-- end_lease returns the number of attached keys it deleted and the ended record (wire form).

local function sweep(keys, args)
  local now = now_ms()
  if now > tonumber(args[1]) then return { 'deadline_exceeded', fmt(now), '0', '0', '0', '0' } end
  local base, p, limit = args[2], policy(args[3]), tonumber(args[4])
  local queue, program = keys[1], keys[2]
  local out, attached = {}, 0
  local drained = r_call('RPOP', base .. 'expired', args[4])
  if not drained then drained = {} end
  for _, entry in ipairs(drained) do out[#out + 1] = entry end
  local due = {}
  if #drained < limit then
    due = r_call('ZRANGEBYSCORE', queue, '-inf', fmt(now), 'LIMIT', '0', fmt(limit - #drained))
  end
  for _, digest in ipairs(due) do
    local status, r = load_record(base, digest, nil)
    if status == 'active' and now >= r.expires then
      local deleted, ended = end_lease(base, p, digest, r, 'expired', nil, true)
      attached = attached + deleted
      out[#out + 1] = digest .. SEP .. ended
    elseif status == 'active' then
      r_call('ZADD', queue, fmt(r.expires), digest)
    elseif status == 'none' then
      r_call('ZREM', queue, digest)
      r_call('ZREM', program, digest)
    else
      r_call('ZREM', queue, digest)
    end
  end
  local left = r_call('ZCOUNT', queue, '-inf', fmt(now))
  local active = r_call('ZCARD', program) - left
  local more = left > 0 or r_call('LLEN', base .. 'expired') > 0
  local reply = { 'swept', fmt(now), fmt(#drained + #due), fmt(attached), more and '1' or '0',
    fmt(math.max(active, 0)) }
  for _, entry in ipairs(out) do reply[#reply + 1] = entry end
  return reply
end

register('sweep', sweep)
