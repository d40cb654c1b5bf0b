-- consume.lua: the consumer-side fence of RabbitMQ deliveries (FencedListenerAdvice). Accepts a message only if its
-- fencing token is not below the high-water mark already accepted for its lock identity, and raises the mark;
-- rejects lower tokens. Contract: "reject a token lower than the durable high-water mark already observed for that
-- identity". RabbitMQ delivery metadata is never proof of ownership: this orders accepted effects, the publish-side
-- authorization (FenceGuard) is the ownership check. A message that would RAISE the mark must name a lease the store
-- issued: its token must not exceed the identity's issued fencing counter, and (lease id, token) must be the active
-- record or a terminal record in the identity's history; otherwise it is forged and rejected WITHOUT touching the
-- mark (a forged 2^53-2 must not block the legitimate holder's next message).
-- Reads the lease store's layout (store/redis, keys named by RedisKeys): fence hash field 'counter' (last issued
-- token), lease hash fields 'lease_id' / 'fencing_token', history list of JSON records with the same fields
-- (encoding v1), or the lease key's string value (earlier releases: its hash field 'r') and history entries as v2
-- record strings (encoding v2).
-- KEYS[1] starintel:target-lease:v1:{T}:consumed:D  (T = the consumer's program hash tag, D = the message's
--         lock-key digest header; hash fields hwm, lease_id, accepted_at_ms; never deleted)
-- KEYS[2] P{T}:fence:D   KEYS[3] P{T}:lease:D   KEYS[4] P{T}:hist:D   (the lease store's, same slot)
-- ARGV[1] fencing token (decimal text)  ARGV[2] lease id
-- Reply: { decision, high-water mark after the decision (decimal text) or '' }, decision one of
--   accepted | rejected (token below the mark) | corrupt | forged_token_above_issued_counter
--   | forged_unknown_lease_id | forged_lease_id_mismatch
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stored = redis.call('HGET', KEYS[1], 'hwm')
if stored and not string.match(stored, '^%d+$') then return { 'corrupt', '' } end
local token = tonumber(ARGV[1])
if stored and token < tonumber(stored) then return { 'rejected', stored } end
if stored and token == tonumber(stored) then
  -- the same token belongs to one lease: another lease id with it is forged
  local accepted_lease = redis.call('HGET', KEYS[1], 'lease_id')
  if accepted_lease and accepted_lease ~= ARGV[2] then return { 'forged_lease_id_mismatch', stored } end
  return { 'accepted', stored }
end
-- the message would raise the mark: it must carry a token and a lease the store issued for this identity
local mark = stored or ''
local counter = redis.call('HGET', KEYS[2], 'counter')
if not counter or not string.match(counter, '^%d+$') or token > tonumber(counter) then
  return { 'forged_token_above_issued_counter', mark }
end
-- lease id and token of a record in the lease store's storage encoding v2 (one string; store/redis/prelude.lua:
-- '2' state token ... then 7 identity fields, then lease_id, separated by \31), or nil for another text
local function v2_lease(text)
  if type(text) ~= 'string' or string.sub(text, 1, 2) ~= '2\31' then return nil end
  local p, start = {}, 1
  for i = 1, 16 do
    local e = string.find(text, '\31', start, true)
    if not e then return nil end
    p[i] = string.sub(text, start, e - 1)
    start = e + 1
  end
  return p[16], p[3]
end
local issued = nil
local lease_kind = redis.call('TYPE', KEYS[3])['ok']
if lease_kind == 'string' then
  local id, tok = v2_lease(redis.call('GET', KEYS[3]))
  if id == ARGV[2] then issued = tok end
elseif lease_kind == 'hash' then
  local record = redis.call('HGET', KEYS[3], 'r')
  if record then
    local id, tok = v2_lease(record)
    if id == ARGV[2] then issued = tok end
  else
    local lease = redis.call('HMGET', KEYS[3], 'lease_id', 'fencing_token')
    if lease[1] == ARGV[2] then issued = lease[2] end
  end
end
if not issued and redis.call('TYPE', KEYS[4])['ok'] == 'list' then
  for _, text in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
    local id, tok = v2_lease(text)
    if id then
      if id == ARGV[2] then issued = tok; break end
    else
      local ok, entry = pcall(cjson.decode, text)
      if ok and type(entry) == 'table' and entry['lease_id'] == ARGV[2] then
        issued = tostring(entry['fencing_token'])
        break
      end
    end
  end
end
if not issued then return { 'forged_unknown_lease_id', mark } end
if issued ~= ARGV[1] then return { 'forged_lease_id_mismatch', mark } end
redis.call('HSET', KEYS[1], 'hwm', ARGV[1], 'lease_id', ARGV[2], 'accepted_at_ms', string.format('%.0f', now))
return { 'accepted', ARGV[1] }
