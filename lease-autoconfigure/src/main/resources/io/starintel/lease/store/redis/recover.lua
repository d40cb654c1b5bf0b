-- recover.lua: after a restore or failover, invalidate (revoke) the active leases of one program so that every
-- holder must acquire again; tokens issued afterwards are floored at backend time x 1024 and so exceed every token
-- issued before the restored state. Processes at most ARGV[3] leases per call; the caller repeats until 0 remain.
-- KEYS[1] P{T}:idx:program   KEYS[2] P{T}:audit
-- ARGV[1] deadline_at ms   ARGV[2] key base 'P{T}:'   ARGV[3] batch size   ARGV[4] administrator principal id
--   ARGV[5] administrator credential id   ARGV[6] reason / incident id   ARGV[7] request id
--   ARGV[8] history length   ARGV[9] history retention ms   ARGV[10] audit stream approximate maximum length
-- Reply: { code ('lease_revoked' | 'deadline_exceeded'), decided_at_ms, revoked in this call, index entries left }
local now = now_ms()
if past_deadline(now, ARGV) then return { 'deadline_exceeded', fmt(now), '0', '0' } end
local ctx = { base = ARGV[2], history_length = tonumber(ARGV[8]), history_ms = tonumber(ARGV[9]) }
local revoked = 0
for _, digest in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], '-', '+', 'LIMIT', 0, tonumber(ARGV[3]))) do
  local key = lease_key(ctx, digest)
  local map = (redis.call('TYPE', key)['ok'] == 'hash') and hgetall_map(key) or {}
  if map['lease_id'] and map['state'] == 'active' then
    end_lease(ctx, digest, map, 'revoked')
    revoked = revoked + 1
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[10], '*', 'event_type', 'target_lease_revoke',
      'backend_time', ms_to_iso(now), 'request_id', ARGV[7], 'principal_class', 'administrator',
      'principal_id', ARGV[4], 'credential_id', ARGV[5], 'tenant_id', map['tenant_id'],
      'program_id', map['program_id'], 'target_namespace', map['target_namespace'], 'target_id', map['target_id'],
      'actor_name', map['actor_name'], 'workflow_name', map['workflow_name'],
      'operation_class', map['operation_class'], 'lease_id', map['lease_id'], 'fencing_token', map['fencing_token'],
      'previous_state', 'active', 'resulting_state', 'revoked', 'result_code', 'lease_revoked',
      'retryable', 'false', 'backend_health', 'ok', 'reason', ARGV[6])
  else
    redis.call('ZREM', KEYS[1], digest)
  end
end
return { 'lease_revoked', fmt(now), fmt(revoked), fmt(redis.call('ZCARD', KEYS[1])) }
