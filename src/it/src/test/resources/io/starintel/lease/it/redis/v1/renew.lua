-- renew.lua: renew-if-owner at backend time; never changes the token, never passes the maximum lifetime.
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:idem:H (operation renew)
-- ARGV[1..13] the shared identity layout (see prelude.lua), then:
--   ARGV[14] request digest   ARGV[15] idempotency retention ms   ARGV[16] maximum deadline ms (policy)
--   ARGV[17] lease_id   ARGV[18] owner_principal_id   ARGV[19] service_instance_id   ARGV[20] fencing_token
--   ARGV[21] physical grace ms
-- Reply: the single-lease shape. Codes: lease_renewed (with the renewed record), lease_lost (stale_lease),
-- idempotency_conflict, deadline_exceeded, invalid_lease_request, lease_backend_unavailable (corrupt_record).
local now, ctx, early = begin_mutation(KEYS[2])
if early then return early end
local map, refused = load_held(ctx, now)
if refused then return refused end
local lifetime_end = iso_to_ms(map['acquired_at']) + tonumber(map['maximum_lifetime_ms'])
local expires = math.min(now + tonumber(map['ttl_ms']), lifetime_end)
map['renewed_at'] = ms_to_iso(now)
map['expires_at'] = ms_to_iso(expires)
redis.call('HSET', KEYS[1], 'renewed_at', map['renewed_at'], 'expires_at', map['expires_at'])
local physical = expires - now + tonumber(ARGV[21])
redis.call('PEXPIRE', KEYS[1], physical)
redis.call('PEXPIRE', ctx.base .. 'lid:' .. map['lease_id'], physical)
redis.call('ZADD', ctx.base .. 'idx:expiry', expires, ctx.digest)
remember(KEYS[2], ARGV[14], 'lease_renewed', now, map, tonumber(ARGV[15]))
return reply('lease_renewed', 'none', now, false, 'active', 0, map)
