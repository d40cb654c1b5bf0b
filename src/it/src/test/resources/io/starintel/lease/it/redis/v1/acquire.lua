-- acquire.lua: acquire-if-free at backend time.
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:fence:D   KEYS[3] P{T}:idem:H (operation acquire)
-- ARGV[1..13] the shared identity layout (see prelude.lua), then:
--   ARGV[14] request digest       ARGV[15] idempotency retention ms   ARGV[16] maximum deadline ms (policy)
--   ARGV[17] clock-skew bound ms   ARGV[18] new lease_id               ARGV[19] ttl_ms
--   ARGV[20] maximum_lifetime_ms   ARGV[21] physical grace ms           ARGV[22] owner_principal_id
--   ARGV[23] owner_client_id      ARGV[24] owner_credential_id        ARGV[25] service_instance_id
--   ARGV[26] execution_id         ARGV[27] job_id                     ARGV[28] trace_id
--   ARGV[29] request_id           ARGV[30] metadata (canonical JSON text)
-- Reply: the single-lease shape. Codes: lease_acquired (with the record), lease_conflict (retry_after_ms = time to
-- expiry), idempotency_conflict, deadline_exceeded, invalid_lease_request (deadline too far ahead),
-- lease_backend_unavailable with corrupt_record | fencing_counter_exhausted | backend_clock_behind.
-- Token: max(counter + 1, backend_ms * 1024); the counter is set to it and never reset.
local now, ctx, early = begin_mutation(KEYS[3])
if early then return early end

-- reclaim a few due leases of the program (expiry queue); each is re-checked against its own record
local due = redis.call('ZRANGEBYSCORE', ctx.base .. 'idx:expiry', '-inf', now, 'LIMIT', 0, 8)
for _, digest in ipairs(due) do
  local key = lease_key(ctx, digest)
  local map = (redis.call('TYPE', key)['ok'] == 'hash') and hgetall_map(key) or {}
  local expires = iso_to_ms(map['expires_at'])
  if map['state'] == 'active' and map['lease_id'] and expires and now >= expires then
    end_lease(ctx, digest, map, 'expired')
  elseif expires and map['state'] == 'active' then
    redis.call('ZADD', ctx.base .. 'idx:expiry', expires, digest) -- a late entry: requeue at the live expiry
  else
    redis.call('ZREM', ctx.base .. 'idx:expiry', digest)
  end
end

local status, current = load_active(ctx, now)
if status == 'corrupt' then return corrupt_reply(now) end
if status == 'active' then
  return reply('lease_conflict', 'none', now, false, nil, iso_to_ms(current['expires_at']) - now, nil)
end

local counter_text = redis.call('HGET', KEYS[2], 'counter')
local counter = 0
if counter_text then
  if not string.match(counter_text, '^%d+$') then return corrupt_reply(now) end
  counter = tonumber(counter_text)
end
if counter > (now + tonumber(ARGV[17])) * 1024 then
  return reply('lease_backend_unavailable', 'backend_clock_behind', now, false, nil, 0, nil)
end
local token = math.max(counter + 1, now * 1024)
if token >= 9007199254740991 then
  return reply('lease_backend_unavailable', 'fencing_counter_exhausted', now, false, nil, 0, nil)
end
redis.call('HSET', KEYS[2], 'counter', fmt(token))

local ttl = tonumber(ARGV[19])
local lifetime = tonumber(ARGV[20])
local expires = now + math.min(ttl, lifetime)
local map = {
  record_version = '1', lock_key = ARGV[4], tenant_id = ARGV[5], program_id = ARGV[6], target_namespace = ARGV[7],
  target_id = ARGV[8], actor_name = ARGV[9], workflow_name = ARGV[10], operation_class = ARGV[11],
  lease_id = ARGV[18], owner_principal_id = ARGV[22], owner_client_id = ARGV[23], owner_credential_id = ARGV[24],
  service_instance_id = ARGV[25], fencing_token = fmt(token), acquired_at = ms_to_iso(now),
  renewed_at = ms_to_iso(now), expires_at = ms_to_iso(expires), ttl_ms = ARGV[19], maximum_lifetime_ms = ARGV[20],
  execution_id = ARGV[26], job_id = ARGV[27], trace_id = ARGV[28], request_id = ARGV[29], metadata = ARGV[30],
  state = 'active' }
redis.call('HSET', KEYS[1], unpack(flat(map, RECORD_FIELDS)))
local physical = expires - now + tonumber(ARGV[21])
redis.call('PEXPIRE', KEYS[1], physical)
redis.call('SET', ctx.base .. 'lid:' .. ARGV[18], ctx.digest, 'PX', physical)
local program, owner, target = index_keys(ctx.base, map)
redis.call('ZADD', program, 0, ctx.digest)
redis.call('ZADD', owner, 0, ctx.digest)
redis.call('ZADD', target, 0, ctx.digest)
redis.call('ZADD', ctx.base .. 'idx:expiry', expires, ctx.digest)
remember(KEYS[3], ARGV[14], 'lease_acquired', now, map, tonumber(ARGV[15]))
return reply('lease_acquired', 'none', now, false, 'active', 0, map)
