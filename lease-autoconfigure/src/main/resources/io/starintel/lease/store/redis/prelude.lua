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
