-- fence_checkpoint.lua: the fenced job checkpoint of the function library starintel_lease_v2 (follows prelude.lua,
-- lease.lua, attach.lua and sweep.lua; it uses their now_ms, fmt, ms_to_iso, peek_record, is_holder and
-- high_water_mark). The Java side is io.starintel.lease.fence.checkpoint.RedisCheckpointStore; arguments built by
-- io.starintel.lease.fence.checkpoint.CheckpointArguments. Lease validation and the write are one function
-- (contract: job checkpoint and terminal-state writes are fenced; a check followed by an unconditional write is not
-- fencing). Read-only on the lease record: it never expires, ends, converts or quarantines a lease (that is the lease
-- transitions' job); the record is read in every encoding lease.lua reads (peek_record: the v2 string, the v2 hash
-- form {r = record} and the v1 26-field hash of earlier releases).
--
-- checkpoint: a checkpoint / terminal-state write, idempotent by its request id.
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:fence:D   KEYS[3] P{T}:checkpoint:D (owned by the fence package)
-- KEYS[4] P{T}:checkpoint:D:req:R (R = SHA-256 of the request id): the decision of this request, kept ARGV[14] ms
-- ARGV[1] deadline_at (epoch ms)  ARGV[2] base 'P{T}:'  ARGV[3] digest D  ARGV[4] identity (the record's identity
-- prefix, lease.lua)  ARGV[5] holder (identity .. lease_id \31 owner_principal_id \31 service_instance_id \31)
-- ARGV[6] fencing_token (decimal)  ARGV[7] state (in_progress|rescheduled|completed|failed)
-- ARGV[8] progress (bounded text)  ARGV[9] execution_id  ARGV[10] trace_id  ARGV[11] lease_id
-- ARGV[12] request (correlation) id  ARGV[13] request digest  ARGV[14] retention of the request's decision (ms)
-- Reply: { code, reason, decided_at_ms, replayed '0'|'1' }
--   code checkpoint_written | lease_lost (expired | stale_lease | token_below_high_water_mark) | deadline_exceeded
--        | lease_backend_unavailable (corrupt_record) | idempotency_conflict (same request id, other content)
-- A request id already decided (written or lease_lost) answers that decision again, before the deadline check: a
-- client that re-sends the call after a lost reply learns what the first run did. deadline_exceeded and
-- corrupt_record changed nothing and are not remembered.
--
-- checkpoint_read: the stored checkpoint of one identity (RedisCheckpointStore.read).
-- KEYS[1] P{T}:checkpoint:D   ARGV: none
-- Reply: { backend time ms, field1, value1, ... } (no fields: no checkpoint)

local function checkpoint(keys, args)
  local now = now_ms()
  local prior = r_call('HMGET', keys[4], 'digest', 'code', 'reason', 'decided')
  if prior[1] then
    if prior[1] ~= args[13] then return { 'idempotency_conflict', 'none', fmt(now), '0' } end
    return { prior[2], prior[3], prior[4], '1' }
  end
  local function decide(code, reason)
    r_call('HSET', keys[4], 'digest', args[13], 'code', code, 'reason', reason, 'decided', fmt(now))
    r_call('PEXPIRE', keys[4], tonumber(args[14]))
    return { code, reason, fmt(now), '0' }
  end
  local corrupt = { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' }
  if now > tonumber(args[1]) then return { 'deadline_exceeded', 'none', fmt(now), '0' } end
  local token_text = args[6]
  local token = tonumber(token_text)
  -- the identity's fenced-write high-water mark (raised by authorize and by this function)
  local hwm_text, below = high_water_mark(keys[2], token_text)
  if below == 'corrupt_record' then return corrupt end
  if below then return decide('lease_lost', below) end
  -- the exact lease must be the active, unexpired record of this identity at backend time
  local status, r = peek_record(args[2], args[3], args[4])
  if status == 'none' then return decide('lease_lost', 'stale_lease') end
  if status == 'corrupt' then return corrupt end
  if r.state ~= 'active' or not is_holder(r, args[5], token_text) then return decide('lease_lost', 'stale_lease') end
  if now >= r.expires then return decide('lease_lost', 'expired') end
  -- the checkpoint itself never goes back to a lower token
  local stored = r_call('HGET', keys[3], 'fencing_token')
  if stored and token < tonumber(stored) then return decide('lease_lost', 'token_below_high_water_mark') end
  if not hwm_text or token > tonumber(hwm_text) then r_call('HSET', keys[2], 'hwm', token_text) end
  r_call('HSET', keys[3], 'state', args[7], 'progress', args[8], 'fencing_token', token_text,
    'lease_id', args[11], 'execution_id', args[9], 'trace_id', args[10], 'correlation_id', args[12],
    'updated_at', ms_to_iso(now))
  return decide('checkpoint_written', 'none')
end

local function checkpoint_read(keys, args)
  local out = { fmt(now_ms()) }
  for _, v in ipairs(r_call('HGETALL', keys[1])) do out[#out + 1] = v end
  return out
end

register('checkpoint', checkpoint)
register('checkpoint_read', checkpoint_read)
