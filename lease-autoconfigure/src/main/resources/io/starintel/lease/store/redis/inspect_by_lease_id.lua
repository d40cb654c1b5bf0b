-- inspect_by_lease_id.lua: the active lease with a given lease id, inside one program's scope.
-- KEYS[1] P{T}:lid:<lease_id> (lease id -> key digest, same life as the record)
-- ARGV[1] deadline_at ms   ARGV[2] key base 'P{T}:'   ARGV[3] lease_id   ARGV[4] tenant_id   ARGV[5] program_id
--   ARGV[6] history length   ARGV[7] history retention ms
-- Reply: the single-lease shape. Codes: lease_inspected, lease_not_found (also when the lease lies outside the
-- scope: absence and out-of-scope are indistinguishable), deadline_exceeded, lease_backend_unavailable
-- (corrupt_record).
local now = now_ms()
if past_deadline(now, ARGV) then return reply('deadline_exceeded', 'none', now, false, nil, 0, nil) end
local digest = redis.call('GET', KEYS[1])
if not digest then return reply('lease_not_found', 'none', now, false, nil, 0, nil) end
local key = ARGV[2] .. 'lease:' .. digest
if redis.call('TYPE', key)['ok'] ~= 'hash' then return reply('lease_not_found', 'none', now, false, nil, 0, nil) end
local stored = hgetall_map(key)
local ctx = { base = ARGV[2], digest = digest, history_length = tonumber(ARGV[6]), history_ms = tonumber(ARGV[7]),
  identity = { stored['lock_key'], stored['tenant_id'], stored['program_id'], stored['target_namespace'],
    stored['target_id'], stored['actor_name'], stored['workflow_name'], stored['operation_class'] } }
if stored['tenant_id'] ~= ARGV[4] or stored['program_id'] ~= ARGV[5] then
  return reply('lease_not_found', 'none', now, false, nil, 0, nil)
end
local status, map = load_active(ctx, now)
if status == 'corrupt' then return corrupt_reply(now) end
if status ~= 'active' or map['lease_id'] ~= ARGV[3] then
  return reply('lease_not_found', 'none', now, false, nil, 0, nil)
end
return reply('lease_inspected', 'none', now, false, 'active', 0, map)
