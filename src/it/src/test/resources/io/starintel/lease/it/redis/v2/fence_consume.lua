-- fence_consume.lua: the consumer-side fence of RabbitMQ deliveries, the last part of the function library
-- starintel_lease_v2 (follows prelude.lua, lease.lua, attach.lua, sweep.lua and fence_checkpoint.lua; it uses their
-- now_ms, fmt, decode, lease_id_of and peek_record). The Java side is
-- io.starintel.lease.fence.amqp.internal.FencedListenerAdvice. Accepts a message only if its fencing token is not
-- below the high-water mark already accepted for its lock identity, and raises the mark; rejects lower tokens.
-- Contract: "reject a token lower than the durable high-water mark already observed for that identity". RabbitMQ
-- delivery metadata is never proof of ownership: this orders accepted effects, the publish-side authorization
-- (FenceGuard) is the ownership check. A message that would RAISE the mark must name a lease the store issued: its
-- token must not exceed the identity's issued fencing counter, and (lease id, token) must be the record of the lease
-- key (any state; read in every encoding lease.lua reads, never converted) or an ended record in the identity's
-- history (v2 strings, read by decode, or the JSON entries of encoding v1); otherwise it is forged and rejected
-- WITHOUT touching the mark (a forged 2^53-2 must not block the legitimate holder's next message).
--
-- consume:
-- KEYS[1] starintel:target-lease:v1:{T}:consumed:D  (T = the consumer's program hash tag, D = the message's
--         lock-key digest header; hash fields hwm, lease_id, accepted_at_ms; never deleted)
-- KEYS[2] P{T}:fence:D   KEYS[3] P{T}:lease:D   KEYS[4] P{T}:hist:D   (the lease store's, same slot)
-- ARGV[1] fencing token (decimal text)  ARGV[2] lease id  ARGV[3] base 'P{T}:'  ARGV[4] digest D
-- Reply: { decision, high-water mark after the decision (decimal text) or '' }, decision one of
--   accepted | rejected (token below the mark) | corrupt | forged_token_above_issued_counter
--   | forged_unknown_lease_id | forged_lease_id_mismatch

-- the token the store issued with lease_id, from the lease key or the identity's history, or nil
local function issued_token(keys, base, digest, lease_id)
  local status, r = peek_record(base, digest, nil)
  if status == 'found' and lease_id_of(r) == lease_id then return r.token end
  if r_call('TYPE', keys[4])['ok'] ~= 'list' then return nil end
  for _, text in ipairs(r_call('LRANGE', keys[4], 0, -1)) do
    local old = decode(text)
    if old then
      if lease_id_of(old) == lease_id then return old.token end
    else
      local ok, entry = pcall(cjson.decode, text)
      if ok and type(entry) == 'table' and entry['lease_id'] == lease_id then
        return tostring(entry['fencing_token'])
      end
    end
  end
  return nil
end

local function consume(keys, args)
  local stored = r_call('HGET', keys[1], 'hwm')
  if stored and not s_match(stored, '^%d+$') then return { 'corrupt', '' } end
  local token = tonumber(args[1])
  if stored and token < tonumber(stored) then return { 'rejected', stored } end
  if stored and token == tonumber(stored) then
    -- the same token belongs to one lease: another lease id with it is forged
    local accepted_lease = r_call('HGET', keys[1], 'lease_id')
    if accepted_lease and accepted_lease ~= args[2] then return { 'forged_lease_id_mismatch', stored } end
    return { 'accepted', stored }
  end
  -- the message would raise the mark: it must carry a token and a lease the store issued for this identity
  local mark = stored or ''
  local counter = r_call('HGET', keys[2], 'counter')
  if not counter or not s_match(counter, '^%d+$') or token > tonumber(counter) then
    return { 'forged_token_above_issued_counter', mark }
  end
  local issued = issued_token(keys, args[3], args[4], args[2])
  if not issued then return { 'forged_unknown_lease_id', mark } end
  if issued ~= args[1] then return { 'forged_lease_id_mismatch', mark } end
  r_call('HSET', keys[1], 'hwm', args[1], 'lease_id', args[2], 'accepted_at_ms', fmt(now_ms()))
  return { 'accepted', args[1] }
end

register('consume', consume)
