-- administer.lua: privileged force-release or revoke of the observed active lease, with its audit event written
-- to the program's stream in the same script (durable before success is reported).
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:idem:H (operation force_release | revoke)   KEYS[3] P{T}:audit
-- ARGV[1..13] the shared identity layout (see prelude.lua), then:
--   ARGV[14] request digest   ARGV[15] idempotency retention ms   ARGV[16] maximum deadline ms (policy)
--   ARGV[17] operation: force_release | revoke   ARGV[18] expected lease_id   ARGV[19] expected fencing_token
--   ARGV[20] admin principal id   ARGV[21] admin credential id   ARGV[22] reason / incident id
--   ARGV[23] request_id   ARGV[24] audit stream approximate maximum length
-- Reply: the single-lease shape. Codes: lease_released (force_release) | lease_revoked (revoke) with the ended
-- record, lease_lost (stale_lease: the observed lease is not the active one), idempotency_conflict,
-- deadline_exceeded, invalid_lease_request, lease_backend_unavailable (corrupt_record).
local now, ctx, early = begin_mutation(KEYS[2])
if early then return early end
local revoke = ARGV[17] == 'revoke'
local status, map = load_active(ctx, now)
if status == 'corrupt' then return corrupt_reply(now) end
local code, state, previous = 'lease_lost', nil, 'none'
if status == 'active' then previous = 'active' end
if status == 'active' and map['lease_id'] == ARGV[18] and map['fencing_token'] == ARGV[19] then
  state = revoke and 'revoked' or 'released'
  code = revoke and 'lease_revoked' or 'lease_released'
end
local event = { 'event_type', revoke and 'target_lease_revoke' or 'target_lease_force_release',
  'backend_time', ms_to_iso(now), 'request_id', ARGV[23], 'principal_class', 'administrator',
  'principal_id', ARGV[20], 'credential_id', ARGV[21], 'tenant_id', ARGV[5], 'program_id', ARGV[6],
  'target_namespace', ARGV[7], 'target_id', ARGV[8], 'actor_name', ARGV[9], 'workflow_name', ARGV[10],
  'operation_class', ARGV[11], 'lease_id', ARGV[18], 'fencing_token', ARGV[19], 'previous_state', previous,
  'resulting_state', state or previous, 'result_code', code, 'retryable', 'false', 'backend_health', 'ok',
  'reason', ARGV[22] }
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[24], '*', unpack(event))
if not state then return reply('lease_lost', 'stale_lease', now, false, nil, 0, nil) end
end_lease(ctx, ctx.digest, map, state)
remember(KEYS[2], ARGV[14], code, now, map, tonumber(ARGV[15]))
return reply(code, 'none', now, false, state, 0, map)
