-- release.lua: release-if-owner at backend time: compare-and-delete with terminal evidence in history.
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:idem:H (operation release)
-- ARGV[1..13] the shared identity layout (see prelude.lua), then:
--   ARGV[14] request digest   ARGV[15] idempotency retention ms   ARGV[16] maximum deadline ms (policy)
--   ARGV[17] lease_id   ARGV[18] owner_principal_id   ARGV[19] service_instance_id   ARGV[20] fencing_token
-- Reply: the single-lease shape. Codes: lease_released (with the released record), lease_lost (stale_lease),
-- idempotency_conflict, deadline_exceeded, invalid_lease_request, lease_backend_unavailable (corrupt_record).
local now, ctx, early = begin_mutation(KEYS[2])
if early then return early end
local map, refused = load_held(ctx, now)
if refused then return refused end
end_lease(ctx, ctx.digest, map, 'released')
remember(KEYS[2], ARGV[14], 'lease_released', now, map, tonumber(ARGV[15]))
return reply('lease_released', 'none', now, false, 'released', 0, map)
