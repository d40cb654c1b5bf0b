-- prelude.lua: helpers shared by every lease script. The store prepends this file to each script body before
-- loading it, so each operation is still exactly one EVALSHA.
-- KEYS/ARGV: none of its own. Defines (all locals of the combined script):
--   now_ms()              backend time (redis TIME) in epoch milliseconds
--   fmt(n)                an integer as exact decimal text (never tostring/cjson: they print 1.8e+15)
--   ms_to_iso(ms)         epoch ms -> 'yyyy-MM-ddTHH:mm:ss.SSSZ' (UTC)
--   iso_to_ms(text)       the inverse; nil when the text is not exactly that format
--   hgetall_map(key)      a hash as a Lua table (field -> string value)
--   flat(map, fields)     alternating field/value array of the given fields, in order
--   RECORD_FIELDS         the 26 fields of record version 1, in contract order
--   check_record(map, a)  nil when the stored hash is a valid active record of the requested identity
--                         (a = { lock_key, tenant_id, ..., operation_class }), else a short reason text

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function fmt(n)
  return string.format('%.0f', n)
end

local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

local function civil_from_days(z)
  z = z + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  return y, m, d
end

local function ms_to_iso(ms)
  local days = math.floor(ms / 86400000)
  local rest = ms - days * 86400000
  local y, m, d = civil_from_days(days)
  local h = math.floor(rest / 3600000)
  local mi = math.floor((rest % 3600000) / 60000)
  local s = math.floor((rest % 60000) / 1000)
  return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', y, m, d, h, mi, s, rest % 1000)
end

local function iso_to_ms(text)
  if type(text) ~= 'string' then return nil end
  local y, m, d, h, mi, s, ms = string.match(text, '^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)%.(%d%d%d)Z$')
  if not y then return nil end
  return days_from_civil(tonumber(y), tonumber(m), tonumber(d)) * 86400000
    + tonumber(h) * 3600000 + tonumber(mi) * 60000 + tonumber(s) * 1000 + tonumber(ms)
end

local function hgetall_map(key)
  local raw = redis.call('HGETALL', key)
  local map = {}
  for i = 1, #raw, 2 do map[raw[i]] = raw[i + 1] end
  return map
end

local RECORD_FIELDS = { 'record_version', 'lock_key', 'tenant_id', 'program_id', 'target_namespace', 'target_id',
  'actor_name', 'workflow_name', 'operation_class', 'lease_id', 'owner_principal_id', 'owner_client_id',
  'owner_credential_id', 'service_instance_id', 'fencing_token', 'acquired_at', 'renewed_at', 'expires_at', 'ttl_ms',
  'maximum_lifetime_ms', 'execution_id', 'job_id', 'trace_id', 'request_id', 'metadata', 'state' }

local IDENTITY_FIELDS = { 'lock_key', 'tenant_id', 'program_id', 'target_namespace', 'target_id', 'actor_name',
  'workflow_name', 'operation_class' }

local function flat(map, fields)
  local out = {}
  for _, f in ipairs(fields) do
    out[#out + 1] = f
    out[#out + 1] = map[f]
  end
  return out
end

local function check_record(map, identity)
  local count = 0
  for _ in pairs(map) do count = count + 1 end
  if count ~= #RECORD_FIELDS then return 'field count' end
  for _, f in ipairs(RECORD_FIELDS) do
    if map[f] == nil then return 'missing field' end
  end
  if map['record_version'] ~= '1' then return 'record_version' end
  for i, f in ipairs(IDENTITY_FIELDS) do
    if map[f] ~= identity[i] then return 'stored tuple differs' end
  end
  if map['state'] ~= 'active' then return 'state' end
  if not string.match(map['fencing_token'], '^%d+$') or not string.match(map['ttl_ms'], '^%d+$')
      or not string.match(map['maximum_lifetime_ms'], '^%d+$') then
    return 'number'
  end
  if not iso_to_ms(map['acquired_at']) or not iso_to_ms(map['renewed_at']) or not iso_to_ms(map['expires_at']) then
    return 'timestamp'
  end
  return nil
end

-- ---------------------------------------------------------------------------------------------------------------
-- Lease-store helpers. Scripts that name one identity share this ARGV layout:
--   ARGV[1] deadline_at (epoch ms)  ARGV[2] key base 'P{T}:'  ARGV[3] key digest D
--   ARGV[4] lock_key  ARGV[5..11] tenant_id, program_id, target_namespace, target_id, actor_name, workflow_name,
--   operation_class  ARGV[12] history length  ARGV[13] history retention ms; operation arguments follow from ARGV[14].
-- Every other key touched is derived from the base, so it shares the declared keys' hash tag and slot.
-- Reply shape of single-lease scripts (all strings):
--   { code, reason, decided_at_ms, replayed '0'|'1', current_state|'' , retry_after_ms, field1, value1, ... }
-- ---------------------------------------------------------------------------------------------------------------

local function context(argv)
  return { base = argv[2], digest = argv[3],
    identity = { argv[4], argv[5], argv[6], argv[7], argv[8], argv[9], argv[10], argv[11] },
    history_length = tonumber(argv[12]), history_ms = tonumber(argv[13]) }
end

local function reply(code, reason, now, replayed, current, retry, map)
  local out = { code, reason, fmt(now), replayed and '1' or '0', current or '', fmt(retry or 0) }
  if map then
    for _, v in ipairs(flat(map, RECORD_FIELDS)) do out[#out + 1] = v end
  end
  return out
end

local function lease_key(ctx, digest)
  return ctx.base .. 'lease:' .. (digest or ctx.digest)
end

local function index_keys(base, map)
  return base .. 'idx:program', base .. 'idx:owner:' .. redis.sha1hex(map['owner_principal_id']),
    base .. 'idx:target:' .. redis.sha1hex(map['target_namespace'] .. '\n' .. map['target_id'])
end

-- Moves an active record to bounded terminal history and removes it and its index entries. Never touches the
-- fencing counter. Conditional on the caller having loaded this very record (same lease id).
local function end_lease(ctx, digest, map, state)
  map['state'] = state
  local hist = ctx.base .. 'hist:' .. digest
  redis.call('LPUSH', hist, cjson.encode(map))
  redis.call('LTRIM', hist, 0, ctx.history_length - 1)
  redis.call('PEXPIRE', hist, ctx.history_ms)
  redis.call('DEL', lease_key(ctx, digest), ctx.base .. 'lid:' .. map['lease_id'])
  local program, owner, target = index_keys(ctx.base, map)
  redis.call('ZREM', program, digest)
  redis.call('ZREM', owner, digest)
  redis.call('ZREM', target, digest)
  redis.call('ZREM', ctx.base .. 'idx:expiry', digest)
end

-- Copies a corrupt record to the quarantine key (once) and pins it: no acquisition over ambiguity.
local function quarantine(ctx)
  local key = lease_key(ctx)
  local q = ctx.base .. 'quarantine:' .. ctx.digest
  if redis.call('EXISTS', q) == 0 then
    redis.call('SET', q, redis.call('DUMP', key))
  end
  redis.call('PERSIST', key)
end

-- The identity's active record at backend time: 'none' | 'active', map | 'corrupt'. An active-shaped record past
-- expires_at is moved to history as expired first.
local function load_active(ctx, now)
  local key = lease_key(ctx)
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'none' then return 'none' end
  if kind ~= 'hash' then quarantine(ctx); return 'corrupt' end
  local map = hgetall_map(key)
  if check_record(map, ctx.identity) then quarantine(ctx); return 'corrupt' end
  if now >= iso_to_ms(map['expires_at']) then
    end_lease(ctx, ctx.digest, map, 'expired')
    return 'none'
  end
  return 'active', map
end

local function corrupt_reply(now)
  return reply('lease_backend_unavailable', 'corrupt_record', now, false, nil, 0, nil)
end

local function is_holder(map, lease_id, principal, instance, token)
  return map['lease_id'] == lease_id and map['owner_principal_id'] == principal
    and map['service_instance_id'] == instance and map['fencing_token'] == token
end

-- The state now of a lease named by a stored result: active, or its terminal state from history (expired when
-- history no longer holds it: nothing but expiry ends a lease without history).
local function state_of(ctx, now, lease_id)
  local status, map = load_active(ctx, now)
  if status == 'active' and map['lease_id'] == lease_id then return 'active' end
  for _, text in ipairs(redis.call('LRANGE', ctx.base .. 'hist:' .. ctx.digest, 0, -1)) do
    local entry = cjson.decode(text)
    if entry['lease_id'] == lease_id then return entry['state'] end
  end
  return 'expired'
end

-- Replays a stored result: nil when nothing is stored, idempotency_conflict when the digest differs.
local function replay(ctx, now, idem_key, digest)
  local stored = hgetall_map(idem_key)
  if stored['digest'] == nil then return nil end
  if digest and stored['digest'] ~= digest then
    return reply('idempotency_conflict', 'none', now, false, nil, 0, nil)
  end
  local map = nil
  local current = nil
  if stored['lease'] ~= '' then
    map = cjson.decode(stored['lease'])
    current = state_of(ctx, now, map['lease_id'])
  end
  return reply(stored['code'], 'none', tonumber(stored['decided']), true, current, 0, map)
end

-- Stores a successful result for its idempotency key, atomically with the mutation.
local function remember(idem_key, digest, code, now, map, retention_ms)
  redis.call('HSET', idem_key, 'digest', digest, 'code', code, 'decided', fmt(now),
    'lease', map and cjson.encode(map) or '')
  redis.call('PEXPIRE', idem_key, retention_ms)
end

local function past_deadline(now, argv)
  return now > tonumber(argv[1])
end

-- The common start of a mutating script (ARGV[14] request digest, ARGV[16] maximum deadline ms): backend time,
-- the policy's deadline bound, the deadline itself, then the idempotency replay. Returns now, ctx and, when the
-- script must stop here, the reply to return.
local function begin_mutation(idem_key)
  local now = now_ms()
  if tonumber(ARGV[1]) > now + tonumber(ARGV[16]) then
    return now, nil, reply('invalid_lease_request', 'none', now, false, nil, 0, nil)
  end
  if past_deadline(now, ARGV) then return now, nil, reply('deadline_exceeded', 'none', now, false, nil, 0, nil) end
  local ctx = context(ARGV)
  return now, ctx, replay(ctx, now, idem_key, ARGV[14])
end

-- The record held by exactly this holder (ARGV[17..20]: lease_id, owner, instance, token), or the reply to return:
-- corrupt_record, or lease_lost for anything else (expired, released, another holder, another token).
local function load_held(ctx, now)
  local status, map = load_active(ctx, now)
  if status == 'corrupt' then return nil, corrupt_reply(now) end
  if status ~= 'active' or not is_holder(map, ARGV[17], ARGV[18], ARGV[19], ARGV[20]) then
    return nil, reply('lease_lost', 'stale_lease', now, false, nil, 0, nil)
  end
  return map, nil
end
