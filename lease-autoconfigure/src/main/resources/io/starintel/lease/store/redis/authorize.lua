-- authorize.lua: FenceGuard's commit authorization at backend time. The exact lease id, owner, instance and token
-- must be the active, unexpired record, and the token must not be below the identity's fenced-write high-water
-- mark, which this script raises to the token.
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:fence:D
-- ARGV[1..13] the shared identity layout (see prelude.lua), then:
--   ARGV[14] lease_id   ARGV[15] owner_principal_id   ARGV[16] service_instance_id   ARGV[17] fencing_token
-- Reply: the single-lease shape. Codes: lease_commit_authorized (with the record), lease_lost
-- (token_below_high_water_mark | stale_lease), deadline_exceeded, lease_backend_unavailable (corrupt_record).
local now = now_ms()
if past_deadline(now, ARGV) then return reply('deadline_exceeded', 'none', now, false, nil, 0, nil) end
local ctx = context(ARGV)
local hwm_text = redis.call('HGET', KEYS[2], 'hwm')
if hwm_text and not string.match(hwm_text, '^%d+$') then return corrupt_reply(now) end
local token = tonumber(ARGV[17])
if hwm_text and token < tonumber(hwm_text) then
  return reply('lease_lost', 'token_below_high_water_mark', now, false, nil, 0, nil)
end
local status, map = load_active(ctx, now)
if status == 'corrupt' then return corrupt_reply(now) end
if status ~= 'active' or not is_holder(map, ARGV[14], ARGV[15], ARGV[16], ARGV[17]) then
  return reply('lease_lost', 'stale_lease', now, false, nil, 0, nil)
end
redis.call('HSET', KEYS[2], 'hwm', ARGV[17])
return reply('lease_commit_authorized', 'none', now, false, 'active', 0, map)
