-- release.lua: release-if-owner at backend time: compare-and-delete with terminal evidence in history.
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:idem:H (operation release)
-- ARGV[1..13] the shared identity layout (see prelude.lua), then:
--   ARGV[14] request digest   ARGV[15] idempotency retention ms   ARGV[16] maximum deadline ms (policy)
--   ARGV[17] lease_id   ARGV[18] owner_principal_id   ARGV[19] service_instance_id   ARGV[20] fencing_token
-- Reply: the single-lease shape. Codes: lease_released (with the released record), lease_lost (stale_lease),
-- idempotency_conflict, deadline_exceeded, invalid_lease_request, lease_backend_unavailable (corrupt_record).
local now = now_ms()
if tonumber(ARGV[1]) > now + tonumber(ARGV[16]) then
  return reply('invalid_lease_request', 'none', now, false, nil, 0, nil)
end
if past_deadline(now, ARGV) then return reply('deadline_exceeded', 'none', now, false, nil, 0, nil) end
local ctx = context(ARGV)
local replayed = replay(ctx, now, KEYS[2], ARGV[14])
if replayed then return replayed end
local status, map = load_active(ctx, now)
if status == 'corrupt' then return corrupt_reply(now) end
if status ~= 'active' or not is_holder(map, ARGV[17], ARGV[18], ARGV[19], ARGV[20]) then
  return reply('lease_lost', 'stale_lease', now, false, nil, 0, nil)
end
end_lease(ctx, ctx.digest, map, 'released')
remember(KEYS[2], ARGV[14], 'lease_released', now, map, tonumber(ARGV[15]))
return reply('lease_released', 'none', now, false, 'released', 0, map)
