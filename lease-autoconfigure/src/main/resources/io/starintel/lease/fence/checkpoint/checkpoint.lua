-- checkpoint.lua: a fenced job checkpoint / terminal-state write, idempotent by its request id. Lease validation and
-- the write are this one script (contract: job checkpoint and terminal-state writes are fenced; a check followed by
-- an unconditional write is not fencing). Self-contained: it reads the lease store's record layout (store/redis:
-- lease hash fields record_version, lock_key ... state, lease_id, owner_principal_id, service_instance_id,
-- fencing_token, expires_at as 'yyyy-MM-ddTHH:mm:ss.SSSZ' in encoding v1; in encoding v2 the one string that is the
-- value of the lease key (or, written by earlier releases, of its hash field r), expires_at in epoch ms; fence hash
-- field hwm) but loads none of its scripts.
-- Read-only on the lease record: it never expires, ends or repairs a lease (that is the lease store's job).
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:fence:D   KEYS[3] P{T}:checkpoint:D (owned by the fence package)
-- KEYS[4] P{T}:checkpoint:D:req:R (R = SHA-256 of the request id): the decision of this request, kept ARGV[20] ms
-- ARGV[1] deadline_at (epoch ms)
-- ARGV[2..9] lock_key, tenant_id, program_id, target_namespace, target_id, actor_name, workflow_name, operation_class
-- ARGV[10] lease_id  ARGV[11] owner_principal_id  ARGV[12] service_instance_id  ARGV[13] fencing_token (decimal)
-- ARGV[14] state (in_progress|rescheduled|completed|failed)  ARGV[15] progress (bounded text)
-- ARGV[16] execution_id  ARGV[17] trace_id  ARGV[18] request (correlation) id  ARGV[19] request digest
-- ARGV[20] retention of the request's decision (ms)
-- Reply: { code, reason, decided_at_ms, replayed '0'|'1' }
--   code checkpoint_written | lease_lost (expired | stale_lease | token_below_high_water_mark) | deadline_exceeded
--        | lease_backend_unavailable (corrupt_record) | idempotency_conflict (same request id, other content)
-- A request id already decided (written or lease_lost) answers that decision again, before the deadline check: a
-- client that re-sends the script after a lost reply learns what the first run did. deadline_exceeded and
-- corrupt_record changed nothing and are not remembered.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function fmt(n) return string.format('%.0f', n) end
local prior = redis.call('HMGET', KEYS[4], 'digest', 'code', 'reason', 'decided')
if prior[1] then
  if prior[1] ~= ARGV[19] then return { 'idempotency_conflict', 'none', fmt(now), '0' } end
  return { prior[2], prior[3], prior[4], '1' }
end
local function decide(code, reason)
  redis.call('HSET', KEYS[4], 'digest', ARGV[19], 'code', code, 'reason', reason, 'decided', fmt(now))
  redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[20]))
  return { code, reason, fmt(now), '0' }
end
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  return era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
end
local function iso_to_ms(text)
  if type(text) ~= 'string' then return nil end
  local y, m, d, h, mi, s, ms = string.match(text, '^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)%.(%d%d%d)Z$')
  if not y then return nil end
  return days_from_civil(tonumber(y), tonumber(m), tonumber(d)) * 86400000
    + tonumber(h) * 3600000 + tonumber(mi) * 60000 + tonumber(s) * 1000 + tonumber(ms)
end
if now > tonumber(ARGV[1]) then return { 'deadline_exceeded', 'none', fmt(now), '0' } end
local token_text = ARGV[13]
local token = tonumber(token_text)
-- the identity's fenced-write high-water mark (raised by authorize-commit and by this script)
local hwm_text = redis.call('HGET', KEYS[2], 'hwm')
if hwm_text and not string.match(hwm_text, '^%d+$') then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' } end
if hwm_text and token < tonumber(hwm_text) then return decide('lease_lost', 'token_below_high_water_mark') end
-- the exact lease must be the active, unexpired record of this identity at backend time
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return decide('lease_lost', 'stale_lease') end
if kind ~= 'hash' and kind ~= 'string' then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' } end
local fields = { 'lock_key', 'tenant_id', 'program_id', 'target_namespace', 'target_id', 'actor_name',
  'workflow_name', 'operation_class', 'lease_id', 'owner_principal_id', 'service_instance_id', 'fencing_token',
  'expires_at', 'state', 'record_version' }
local v
local v2
if kind == 'string' then v2 = redis.call('GET', KEYS[1]) else v2 = redis.call('HGET', KEYS[1], 'r') end
if v2 then
  -- storage encoding v2 of the lease store (one string: the lease key's value, or its hash field r; store/redis/
  -- prelude.lua, core StoredRecord): '2' state token acquired_ms renewed_ms expires_ms ttl_ms lifetime_ms tenant
  -- program namespace target_id actor workflow operation_class lease_id owner_principal_id service_instance_id ...,
  -- separated by \31
  local p, start = {}, 1
  for i = 1, 18 do
    local e = string.find(v2, '\31', start, true)
    if not e then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' } end
    p[i] = string.sub(v2, start, e - 1)
    start = e + 1
  end
  if p[1] ~= '2' or (kind == 'hash' and redis.call('HLEN', KEYS[1]) ~= 1) or not string.match(p[6], '^%d+$') then
    return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' }
  end
  -- the v2 record holds no lock key: the key name (from the same identity) stands for it
  v = { ARGV[2], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[3], p[6], p[2], '1' }
else
  v = redis.call('HMGET', KEYS[1], unpack(fields))
end
for i = 1, #fields do
  if not v[i] then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' } end
end
for i = 1, 8 do
  if v[i] ~= ARGV[i + 1] then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' } end
end
local expires = v2 and tonumber(v[13]) or iso_to_ms(v[13])
if v[15] ~= '1' or not expires or not string.match(v[12], '^%d+$') then
  return { 'lease_backend_unavailable', 'corrupt_record', fmt(now), '0' }
end
if v[14] ~= 'active' then return decide('lease_lost', 'stale_lease') end
if v[9] ~= ARGV[10] or v[10] ~= ARGV[11] or v[11] ~= ARGV[12] or v[12] ~= token_text then
  return decide('lease_lost', 'stale_lease')
end
if now >= expires then return decide('lease_lost', 'expired') end
-- the checkpoint itself never goes back to a lower token
local stored = redis.call('HGET', KEYS[3], 'fencing_token')
if stored and token < tonumber(stored) then return decide('lease_lost', 'token_below_high_water_mark') end
if not hwm_text or token > tonumber(hwm_text) then redis.call('HSET', KEYS[2], 'hwm', token_text) end
local days = math.floor(now / 86400000)
local rest = now - days * 86400000
local z = days + 719468
local era = math.floor(z / 146097)
local doe = z - era * 146097
local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
local mp = math.floor((5 * doy + 2) / 153)
local d = doy - math.floor((153 * mp + 2) / 5) + 1
local m = mp < 10 and mp + 3 or mp - 9
local y = yoe + era * 400 + ((m <= 2) and 1 or 0)
local updated = string.format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', y, m, d, math.floor(rest / 3600000),
  math.floor((rest % 3600000) / 60000), math.floor((rest % 60000) / 1000), rest % 1000)
redis.call('HSET', KEYS[3], 'state', ARGV[14], 'progress', ARGV[15], 'fencing_token', token_text,
  'lease_id', ARGV[10], 'execution_id', ARGV[16], 'trace_id', ARGV[17], 'correlation_id', ARGV[18],
  'updated_at', updated)
return decide('checkpoint_written', 'none')
