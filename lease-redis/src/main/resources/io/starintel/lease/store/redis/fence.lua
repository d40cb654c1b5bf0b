-- fence.lua: the fence functions of the function library starintel_lease_v3 (the last part, after prelude.lua,
-- lease.lua, attach.lua and sweep.lua, whose helpers it uses): the fenced job checkpoint, the consumer-side fence of
-- RabbitMQ deliveries and the durable marks of fenced CouchDB documents. They use the lease transitions' identity
-- hash, backend time, deadline rule, exact-holder check and high-water mark (one home per rule), never expire, end or
-- convert a lease themselves (that is the transitions' job; a lease written on another node is revoked by the
-- automatic recovery like in any other call). The Java side: io.starintel.lease.fence.checkpoint.RedisCheckpointStore
-- (arguments: CheckpointArguments), io.starintel.lease.fence.amqp.internal.FencedListenerAdvice and
-- io.starintel.lease.fence.couchdb.DocumentMarkStore, all through the lease store's function calls.

-- a fencing token this file stored in a hash of its own (a checkpoint's token, a consumer's mark), as it writes one:
-- decimal digits below 2^53 - 1. Returns the text (false when absent), or nil and true when the key is not a hash or
-- the value anything else: a corrupt record, which no call computes with or overwrites (contract: malformed or
-- corrupt records fail closed with a stable typed result).
local function stored_token(key, field)
  local v = r_pcall('HGET', key, field)
  if type(v) == 'table' then return nil, true end -- an error reply: WRONGTYPE
  if not v then return false, false end
  if not s_find(v, '^%d+$') or #v > 16 or v + 0 >= MAX_TOKEN then return nil, true end
  return v, false
end

-- checkpoint: a checkpoint / terminal-state write, idempotent by its request id.
-- KEYS[1] l:D   KEYS[2] checkpoint:D   KEYS[3] checkpoint:D:req:R (R = SHA-256 of the request id): the decision of
--   this request, kept ARGV[14] ms   KEYS[4] audit
-- ARGV[1] deadline_at   ARGV[2] base   ARGV[3] digest D   ARGV[4] identity   ARGV[5] holder   ARGV[6] fencing_token
-- ARGV[7] state (in_progress|rescheduled|completed|failed)   ARGV[8] progress (bounded text)   ARGV[9] execution_id
-- ARGV[10] trace_id   ARGV[11] lease_id   ARGV[12] request (correlation) id   ARGV[13] request digest
-- ARGV[14] retention of the request's decision (ms)   ARGV[15] recovery   ARGV[16] audit_length   ARGV[17] policy
-- Reply: { code, reason, decided_at_ms, replayed '0'|'1' }
--   code checkpoint_written | lease_lost (expired | stale_lease | token_below_high_water_mark) | deadline_exceeded
--        | lease_backend_unavailable (corrupt_record | recovery_required) | idempotency_conflict (same request id,
--        other content)
-- A request id already decided (written or lease_lost) answers that decision again, before the deadline check: a
-- client that re-sends the call after a lost reply learns what the first run did. deadline_exceeded,
-- corrupt_record and recovery_required changed nothing and are not remembered.
local function checkpoint(keys, args)
  local now = now_ms()
  local prior = r_call('HMGET', keys[3], 'digest', 'code', 'reason', 'decided')
  if prior[1] then
    if prior[1] ~= args[13] then return { 'idempotency_conflict', 'none', fmt(now), '0' } end
    -- the replica wait behind the call covers the decision it repeats (this write follows it in the stream)
    r_call('PEXPIRE', keys[3], args[14])
    return { prior[2], prior[3], prior[4], '1' }
  end
  local function decide(code, reason)
    r_call('HSET', keys[3], 'digest', args[13], 'code', code, 'reason', reason, 'decided', fmt(now))
    r_call('PEXPIRE', keys[3], args[14])
    return { code, reason, fmt(now), '0' }
  end
  if deadline_refusal(args[1], now, nil) then return { 'deadline_exceeded', 'none', fmt(now), '0' } end
  local id = load_identity(keys[1], args[2], args[3], args[4])
  if id.status == 'corrupt' then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' } end
  if id.status == 'active' and stamp_state(id.e) == 'foreign' then
    if args[15] == '' then return { 'lease_backend_unavailable', 'recovery_required', fmt(now), '0' } end
    revoke_foreign(id, policy(args[17]), now, args[15], keys[4], args[16], 'recovery')
  end
  local stored, corrupt = stored_token(keys[2], 'fencing_token')
  if corrupt then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' } end
  local token_text = args[6]
  local below = below_mark(id, token_text)
  if below then return decide('lease_lost', below) end
  -- the exact lease must be the active, unexpired record of this identity at backend time
  if id.status ~= 'active' or not is_holder(id.r, args[5], token_text) then return decide('lease_lost', 'stale_lease') end
  if now >= id.r.expires then return decide('lease_lost', 'expired') end
  -- the checkpoint itself never goes back to a lower token
  if stored and token_text + 0 < stored + 0 then return decide('lease_lost', 'token_below_high_water_mark') end
  r_call('HSET', keys[1], unpack(stamp_fields(id, { 'h', token_text })))
  r_call('HSET', keys[2], 'state', args[7], 'progress', args[8], 'fencing_token', token_text,
    'lease_id', args[11], 'execution_id', args[9], 'trace_id', args[10], 'correlation_id', args[12],
    'updated_at', ms_to_iso(now))
  return decide('checkpoint_written', 'none')
end

-- checkpoint_read: the stored checkpoint of one identity (RedisCheckpointStore.read).
-- KEYS[1] checkpoint:D   ARGV[1] deadline_at
-- Reply: { backend time ms, field1, value1, ... } (no fields: no checkpoint), { 'deadline_exceeded', ms }, or
-- { 'corrupt_record', ms } when the key is not a hash (the fields' values are judged by the Java side)
local function checkpoint_read(keys, args)
  local now = now_ms()
  if deadline_refusal(args[1], now, nil) then return { 'deadline_exceeded', fmt(now) } end
  local fields = r_pcall('HGETALL', keys[1])
  if fields.err then return { 'corrupt_record', fmt(now) } end
  local out = { fmt(now) }
  for _, v in ipairs(fields) do out[#out + 1] = v end
  return out
end

-- the token the store issued with lease_id for identity id: its active record, its acquire's result (v3 lease ids,
-- kept for the idempotency retention: longer than any lease lives; only when that result was granted for id: the
-- result's key is the program's, and another identity's real pair is not this identity's), the history ring, or the
-- v2 history; or nil
local function issued_token(id, lease_id)
  if id.r and lease_id_of(id.r) == lease_id then return id.r.token end
  local r, _, digest = acquire_record(id.base, lease_id)
  if r and digest == id.digest then return r.token end
  local entry = ring_entry(id, lease_id)
  if entry then return s_match(entry, '^[^\31]*\31(%d+)') end
  if r_call('TYPE', id.base .. 'hist:' .. id.digest)['ok'] == 'list' then
    for _, text in ipairs(r_call('LRANGE', id.base .. 'hist:' .. id.digest, 0, -1)) do
      local old = decode(text)
      if old and lease_id_of(old) == lease_id then return old.token end
    end
  end
  return nil
end

-- consume: accepts a message only if its fencing token is not below the high-water mark already accepted for its
-- lock identity, and raises the mark; rejects lower tokens. Contract: "reject a token lower than the durable
-- high-water mark already observed for that identity". RabbitMQ delivery metadata is never proof of ownership: this
-- orders accepted effects, the publish-side authorization (FenceGuard) is the ownership check. A message that would
-- RAISE the mark must name a lease the store issued: its token must not exceed the identity's issued fencing counter,
-- and (lease id, token) must be a lease of the identity (active, its acquire's result, or its history); otherwise it
-- is forged and rejected WITHOUT touching the mark (a forged 2^53-2 must not block the legitimate holder's next one).
-- KEYS[1] consumed:D (in the consumer's program; hash fields hwm, lease_id, accepted_at_ms; never deleted)
-- KEYS[2] l:D (the lease store's, same program)
-- ARGV[1] fencing token (decimal text)  ARGV[2] lease id  ARGV[3] base  ARGV[4] digest D  ARGV[5] deadline_at
-- Reply: { decision, high-water mark after the decision (decimal text) or '' }, decision one of
--   accepted | rejected (token below the mark) | corrupt | deadline_exceeded | forged_token_above_issued_counter
--   | forged_unknown_lease_id | forged_lease_id_mismatch
local function consume(keys, args)
  local now = now_ms()
  if deadline_refusal(args[5], now, nil) then return { 'deadline_exceeded', '' } end
  local stored, corrupt = stored_token(keys[1], 'hwm')
  if corrupt then return { 'corrupt', '' } end
  local token = args[1] + 0
  if stored and token < stored + 0 then return { 'rejected', stored } end
  if stored and token == stored + 0 then
    -- the same token belongs to one lease: another lease id with it is forged
    local accepted_lease = r_call('HGET', keys[1], 'lease_id')
    if accepted_lease and accepted_lease ~= args[2] then return { 'forged_lease_id_mismatch', stored } end
    -- a write, so that the replica wait after the call covers the acceptance it repeats
    r_call('HSET', keys[1], 'accepted_at_ms', fmt(now))
    return { 'accepted', stored }
  end
  -- the message would raise the mark: it must carry a token and a lease the store issued for this identity
  local mark = stored or ''
  local id = load_identity(keys[2], args[3], args[4], nil)
  if id.status == 'corrupt' then return { 'corrupt', mark } end
  local counter = id.c
  if not counter or token > counter + 0 then -- (decimal digits: load_identity)
    return { 'forged_token_above_issued_counter', mark }
  end
  local issued = issued_token(id, args[2])
  if not issued then return { 'forged_unknown_lease_id', mark } end
  if issued ~= args[1] then return { 'forged_lease_id_mismatch', mark } end
  r_call('HSET', keys[1], 'hwm', args[1], 'lease_id', args[2], 'accepted_at_ms', fmt(now))
  return { 'accepted', args[1] }
end

-- a stored mark: '<lock_key_digest> <token>' or, written since the lease id is kept, '<lock_key_digest> <token>
-- <lease_id>' (the lease that wrote the token); digest, token, lease id ('' when not kept), or nil when unreadable
local function mark_of(stored)
  local digest, token, lease_id = s_match(stored, '^(%S+) (%d+) ?(%S*)$')
  return digest, token, lease_id
end

-- mark_raise: raises the durable mark of one fenced CouchDB document after an accepted write (FencedCouchDbConnector).
-- The mark survives anything done to the document in CouchDB (_purge included), so a fenced read can tell a stale
-- re-creation from the current document. A mark never goes down and never changes its lock identity. It keeps the
-- lease id of the write that raised it (one token belongs to one lease), so that a fenced read accepts the mark's
-- token only with that lease id (a forged fence may copy the token, not name another lease).
-- Who may raise is decided before this call, not here (one home per rule): a fenced write's authorization at backend
-- time (FenceGuard: lease.lua's authorize_commit, the home of the exact-holder and high-water-mark rules), and for
-- FencedDocuments.retryMark the same authorization plus the document's own identity as CouchDB stores it (a mark is
-- only raised to the identity of the document it belongs to: 'identity_differs' is final). This function does not
-- refuse a token below the identity's high-water mark: a write accepted at its authorization (the contract's
-- acceptance point) before a successor's must still mark its document after the CouchDB write, and a lower token
-- never lowers a mark ('kept').
-- KEYS[1] couchdb:marks (hash: field = F, unpadded base64url SHA-256 of database + "\n" + document id, value =
--   '<lock_key_digest> <fencing_token> <lease_id>' (marks raised before the lease id was kept have none); never
--   deleted)
-- ARGV[1] deadline_at  ARGV[2] F  ARGV[3] lock_key_digest  ARGV[4] fencing_token (decimal text)  ARGV[5] lease_id
--   (absent or '': none kept)
-- Reply: { 'raised' | 'kept' | 'identity_differs' | 'deadline_exceeded', stored digest, stored token }
local function mark_raise(keys, args)
  local now = now_ms()
  if deadline_refusal(args[1], now, nil) then return { 'deadline_exceeded', '', '' } end
  local lease_id = args[5] or ''
  if not s_match(lease_id, '^%S*$') then lease_id = '' end
  local value = args[3] .. ' ' .. args[4] .. ((lease_id ~= '') and (' ' .. lease_id) or '')
  local stored = r_call('HGET', keys[1], args[2])
  if stored then
    local digest, token, stored_lease = mark_of(stored)
    if digest and digest ~= args[3] then return { 'identity_differs', digest, token } end
    if digest and token + 0 >= args[4] + 0 then
      -- the same token again: a mark kept without its lease id learns it (one token, one lease)
      if token + 0 == args[4] + 0 and stored_lease == '' and lease_id ~= '' then stored = value end
      r_call('HSET', keys[1], args[2], stored) -- a write: the replica wait behind the call covers the mark
      return { 'kept', digest, token }
    end
  end
  r_call('HSET', keys[1], args[2], value)
  return { 'raised', args[3], args[4] }
end

-- mark_read: what a fenced CouchDB read compares a document with (FencedCouchDbReader, FencedDocumentRecovery): the
-- document's durable mark, the fencing counter of its lock identity (the highest token the lease store ever issued
-- for it), and for each (lease id, token) pair asked about whether the store issued that token with that lease id
-- for the identity (issued_token: the rule of consume; a fenced read accepts a token above the mark only so).
-- KEYS[1] couchdb:marks   KEYS[2] l:D of the identity to use when no mark is stored (the expected one)
-- ARGV[1] deadline_at   ARGV[2] F   ARGV[3] base   ARGV[4] D of KEYS[2] ('' when none is expected)
-- ARGV[5], ARGV[6], ...: pairs lease id, token (decimal text) to check
-- Reply: { mark digest | '', mark token | '', counter | '', mark lease id | '', '1' | '0' per pair } (all decimal
-- text; no pair answers when the identity is corrupt), or { 'deadline_exceeded' }
-- A mark of another identity than KEYS[2]'s names its own identity hash, in the same program (same slot).
local function mark_read(keys, args)
  local now = now_ms()
  if deadline_refusal(args[1], now, nil) then return { 'deadline_exceeded' } end
  local digest, token, mark_lease = '', '', ''
  local stored = r_call('HGET', keys[1], args[2])
  if stored then
    local d, t, l = mark_of(stored)
    if d then digest, token, mark_lease = d, t, l end
  end
  local identity = (digest ~= '') and digest or args[4]
  local counter = ''
  local out = { digest, token, '', mark_lease }
  if identity ~= '' then
    local key = (identity == args[4]) and keys[2] or identity_key(args[3], identity)
    local id = load_identity(key, args[3], identity, nil)
    counter = id.c or ''
    out[3] = counter
    if id.status == 'corrupt' then return out end
    for i = 5, #args - 1, 2 do
      out[#out + 1] = (issued_token(id, args[i]) == args[i + 1]) and '1' or '0'
    end
  else
    for _ = 5, #args - 1, 2 do out[#out + 1] = '0' end
  end
  return out
end

register('checkpoint', checkpoint)
register('checkpoint_read', checkpoint_read)
register('consume', consume)
register('mark_raise', mark_raise)
register('mark_read', mark_read)
