-- prelude.lua: the record codec of the lease store (storage encoding v2), the one Lua home of the record schema,
-- backend time and the token text rule. It is the first part of the function library starintel_lease_v2
-- (LeaseLibrary composes '#!lua name=...' + this file + lease.lua + attach.lua + sweep.lua + fence_checkpoint.lua
-- + fence_consume.lua and loads it once with FUNCTION LOAD). KEYS/ARGV: none of its own. Replies: none. Only local
-- definitions (no call to Redis at load time).
--
-- Record v2: one string, the value of the string key P{T}:lease:D (written with SET ... PX; the v2 hash form, field
-- 'r' of a hash, written by earlier releases, and the v1 26-field hash are still read and converted on first touch,
-- lease.lua load_record). History entries and idempotency results carry the same string. Fields are separated by
-- \31 (unit separator: no identity component, identifier or canonical metadata JSON can contain it):
--   '2' state token acquired_ms renewed_ms expires_ms ttl_ms maximum_lifetime_ms | fixed [| 'a']
--   fixed = tenant program namespace target_id actor workflow operation_class lease_id owner_principal_id
--           service_instance_id owner_client_id owner_credential_id execution_id job_id trace_id request_id metadata
-- The trailing field 'a' (ATTACHED) exists only in the stored lease key: attach.lua sets it when the lease gets its
-- first attached key, so that ending a lease that never had one skips the attached-keys lookup. It never appears in
-- replies, history or idempotency records (encode writes the wire form; stored adds the marker).
-- The fixed part is built by Java (io.starintel.lease.core.internal.StoredRecord); its identity prefix and holder prefix
-- make the identity check and the exact-holder check one string comparison each. Times are epoch milliseconds: no
-- ISO-8601 text is formatted or parsed on the lease path (ms_to_iso/iso_to_ms below serve the audit stream entries
-- of administer/recover and the v1 upgrade path only).
--
-- Defines: SEP, now_ms, fmt, decode, times_of, encode, stored, lease_id_of, split, ms_to_iso, iso_to_ms, check_record,
--   v1_map_to_record, KEY_PREFIX.

-- the string functions and redis.call/pcall as upvalues, bound on the first call of any function (library load time
-- offers neither: see bind and register), so a call resolves none of them through the globals
local s_match, s_find, s_sub, s_format, s_byte, r_call, r_pcall

local function bind()
  s_match, s_find, s_sub, s_format, s_byte = string.match, string.find, string.sub, string.format, string.byte
  r_call, r_pcall = redis.call, redis.pcall
end

-- registers function LIBRARY_name; every function of the library is registered through it, so bind has run before
-- its body
local function register(name, f)
  redis.register_function(LIBRARY .. '_' .. name, function(keys, args)
    if not r_call then bind() end
    return f(keys, args)
  end)
end

local SEP = '\31'
-- state, token, the span of the five times (acquired renewed expires ttl lifetime: digits), expires, fixed part
local HEAD = '^2\31([^\31]*)\31(%d+)\31()%d+\31%d+\31(%d+)\31%d+\31%d+()\31()'
local TIMES = '^(%d+)\31(%d+)\31(%d+)\31(%d+)\31(%d+)$'
-- the seven identity fields, then the lease id (literal patterns: library load time offers no string functions)
local IDENTITY7 = '[^\31]*\31[^\31]*\31[^\31]*\31[^\31]*\31[^\31]*\31[^\31]*\31[^\31]*\31'
local LEASE_ID = '^' .. IDENTITY7 .. '([^\31]*)\31'

-- Numbers: decimal text that is digits by construction (arguments Java built, TIME's fields, text a pattern already
-- matched as digits) becomes a number by arithmetic coercion (x + 0: one conversion); tonumber (two conversions, nil
-- instead of an error) only where the text may be anything.
local function now_ms()
  local t = r_call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end

-- an integer as exact decimal text (never tostring/cjson: they print 1.8e+15). '%d' formats the integer-valued
-- double as a 64-bit long (exact below 2^53), without the floating-point printf path of '%.0f'; the last value is
-- kept, since one call formats its backend time several times. Redis arguments are passed as text: Redis 7.0
-- formats a Lua number argument with printf '%.17g'.
local last_n, last_text = nil, nil
local function fmt(n)
  if n ~= last_n then last_n, last_text = n, s_format('%d', n) end
  return last_text
end

local ATTACHED = '\31a' -- the stored-only trailer: the lease has (or had) attached keys

-- the record table { state, token (text), expires (number), times (the text of the five times, decimal digits
-- separated by SEP: acquired renewed expires ttl lifetime; times_of reads them), fixed, attached }, or nil. Only
-- expires is converted to a number here: it is what every caller decides on. The metadata (last fixed field) is
-- JSON, which cannot contain \31: a trailing \31 'a' is the marker.
local function decode(text)
  if type(text) ~= 'string' then return nil end
  local state, token, from, expires, to, pos = s_match(text, HEAD)
  if not state then return nil end
  local last, attached = -1, false
  if s_byte(text, -1) == 97 and s_byte(text, -2) == 31 then last, attached = -3, true end
  return { state = state, token = token, expires = expires + 0, times = s_sub(text, from, to - 1),
    fixed = s_sub(text, pos, last), attached = attached }
end

-- the five times of a record as text: acquired, renewed, expires, ttl, lifetime
local function times_of(r)
  return s_match(r.times, TIMES)
end

-- the wire form (replies, history, idempotency records): never the ATTACHED marker
local function encode(r)
  return '2\31' .. r.state .. SEP .. r.token .. SEP .. r.times .. SEP .. r.fixed
end

-- the stored form (the lease key's value): the wire form (wire, when the caller has it already, else encode(r)),
-- plus the marker when the lease has attached keys
local function stored(r, wire)
  wire = wire or encode(r)
  if r.attached then return wire .. ATTACHED end
  return wire
end

local function lease_id_of(r)
  return s_match(r.fixed, LEASE_ID)
end

-- all \31-separated fields of a text (off the hot path)
local function split(text)
  local out, start = {}, 1
  while true do
    local i = s_find(text, SEP, start, true)
    if not i then out[#out + 1] = s_sub(text, start); return out end
    out[#out + 1] = s_sub(text, start, i - 1)
    start = i + 1
  end
end

-- ---- ISO-8601 (audit stream entries and the v1 upgrade path only) ----------------------------------------------------------

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
  return s_format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', y, m, d, h, mi, s, rest % 1000)
end

-- 'yyyy-MM-ddTHH:mm:ss.SSSZ' -> epoch ms; epoch-ms digits (the v1 view of a v2 record) are accepted as they are
local function iso_to_ms(text)
  if type(text) ~= 'string' then return nil end
  if s_match(text, '^%d+$') then return tonumber(text) end
  local y, m, d, h, mi, s, ms = s_match(text, '^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)%.(%d%d%d)Z$')
  if not y then return nil end
  return days_from_civil(tonumber(y), tonumber(m), tonumber(d)) * 86400000
    + tonumber(h) * 3600000 + tonumber(mi) * 60000 + tonumber(s) * 1000 + tonumber(ms)
end

-- ---- the v1 encoding (26-field hash): read for upgrades ------------------------------------------------------------

local V1_FIELDS = { 'record_version', 'lock_key', 'tenant_id', 'program_id', 'target_namespace', 'target_id',
  'actor_name', 'workflow_name', 'operation_class', 'lease_id', 'owner_principal_id', 'owner_client_id',
  'owner_credential_id', 'service_instance_id', 'fencing_token', 'acquired_at', 'renewed_at', 'expires_at', 'ttl_ms',
  'maximum_lifetime_ms', 'execution_id', 'job_id', 'trace_id', 'request_id', 'metadata', 'state' }
-- v1 field names of the fixed part, in v2 order (metadata last)
local FIXED_FIELDS = { 'tenant_id', 'program_id', 'target_namespace', 'target_id', 'actor_name', 'workflow_name',
  'operation_class', 'lease_id', 'owner_principal_id', 'service_instance_id', 'owner_client_id',
  'owner_credential_id', 'execution_id', 'job_id', 'trace_id', 'request_id', 'metadata' }
local KEY_PREFIX = 'starintel:target-lease:v1:'

-- v1 validity of a field map (26 fields, record_version 1, identity tuple, active, numbers, ISO times); identity is
-- { lock_key, tenant_id, ..., operation_class } or nil (then the map's own tuple is used). nil when valid.
local function check_record(map, identity)
  local count = 0
  for _ in pairs(map) do count = count + 1 end
  if count ~= #V1_FIELDS then return 'field count' end
  for _, f in ipairs(V1_FIELDS) do
    if map[f] == nil then return 'missing field' end
  end
  if map['record_version'] ~= '1' then return 'record_version' end
  if identity then
    for i, f in ipairs({ 'lock_key', 'tenant_id', 'program_id', 'target_namespace', 'target_id', 'actor_name',
        'workflow_name', 'operation_class' }) do
      if map[f] ~= identity[i] then return 'stored tuple differs' end
    end
  end
  if map['state'] ~= 'active' then return 'state' end
  if not s_match(map['fencing_token'], '^%d+$') or not s_match(map['ttl_ms'], '^%d+$')
      or not s_match(map['maximum_lifetime_ms'], '^%d+$') then
    return 'number'
  end
  if not iso_to_ms(map['acquired_at']) or not iso_to_ms(map['renewed_at']) or not iso_to_ms(map['expires_at']) then
    return 'timestamp'
  end
  return nil
end

-- a valid v1 field map as a v2 record table (the upgrade's conversion; the lock key is not stored in v2: it derives
-- from the key name)
local function v1_map_to_record(map)
  local fixed = {}
  for i, f in ipairs(FIXED_FIELDS) do fixed[i] = map[f] end
  local expires = iso_to_ms(map['expires_at'])
  return { state = map['state'], token = map['fencing_token'], expires = expires,
    times = fmt(iso_to_ms(map['acquired_at'])) .. SEP .. fmt(iso_to_ms(map['renewed_at'])) .. SEP .. fmt(expires)
      .. SEP .. fmt(tonumber(map['ttl_ms'])) .. SEP .. fmt(tonumber(map['maximum_lifetime_ms'])),
    fixed = table.concat(fixed, SEP) }
end
