-- checkpoint.lua: a fenced job checkpoint / terminal-state write. Lease validation and the write are this one script
-- (contract: job checkpoint and terminal-state writes are fenced; a check followed by an unconditional write is not
-- fencing). Prepended with store/redis/prelude.lua (now_ms, fmt, ms_to_iso, iso_to_ms, hgetall_map, check_record).
-- Read-only on the lease record: it never expires, ends or repairs a lease (that is the lease store's job).
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:fence:D   KEYS[3] P{T}:checkpoint:D (owned by the fence package)
-- ARGV[1] deadline_at (epoch ms)
-- ARGV[2..9] lock_key, tenant_id, program_id, target_namespace, target_id, actor_name, workflow_name, operation_class
-- ARGV[10] lease_id  ARGV[11] owner_principal_id  ARGV[12] service_instance_id  ARGV[13] fencing_token (decimal)
-- ARGV[14] state (in_progress|rescheduled|completed|failed)  ARGV[15] progress (bounded text)
-- ARGV[16] execution_id  ARGV[17] trace_id  ARGV[18] correlation_id
-- Reply: { code, reason, decided_at_ms }
--   code checkpoint_written | lease_lost (expired | stale_lease | token_below_high_water_mark) | deadline_exceeded
--        | lease_backend_unavailable (corrupt_record)
local now = now_ms()
if now > tonumber(ARGV[1]) then return { 'deadline_exceeded', 'none', fmt(now) } end
local token_text = ARGV[13]
local token = tonumber(token_text)
-- the identity's fenced-write high-water mark (raised by authorize-commit and by this script)
local hwm_text = redis.call('HGET', KEYS[2], 'hwm')
if hwm_text and not string.match(hwm_text, '^%d+$') then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now) } end
if hwm_text and token < tonumber(hwm_text) then return { 'lease_lost', 'token_below_high_water_mark', fmt(now) } end
-- the exact lease must be the active, unexpired record at backend time
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return { 'lease_lost', 'stale_lease', fmt(now) } end
if kind ~= 'hash' then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now) } end
local map = hgetall_map(KEYS[1])
local identity = { ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9] }
local problem = check_record(map, identity)
if problem == 'state' then return { 'lease_lost', 'stale_lease', fmt(now) } end
if problem then return { 'lease_backend_unavailable', 'corrupt_record', fmt(now) } end
if map['lease_id'] ~= ARGV[10] or map['owner_principal_id'] ~= ARGV[11] or map['service_instance_id'] ~= ARGV[12]
    or map['fencing_token'] ~= token_text then
  return { 'lease_lost', 'stale_lease', fmt(now) }
end
if now >= iso_to_ms(map['expires_at']) then return { 'lease_lost', 'expired', fmt(now) } end
-- the checkpoint itself never goes back to a lower token
local stored = redis.call('HGET', KEYS[3], 'fencing_token')
if stored and token < tonumber(stored) then return { 'lease_lost', 'token_below_high_water_mark', fmt(now) } end
if not hwm_text or token > tonumber(hwm_text) then redis.call('HSET', KEYS[2], 'hwm', token_text) end
redis.call('HSET', KEYS[3], 'state', ARGV[14], 'progress', ARGV[15], 'fencing_token', token_text,
  'lease_id', ARGV[10], 'execution_id', ARGV[16], 'trace_id', ARGV[17], 'correlation_id', ARGV[18],
  'updated_at', ms_to_iso(now))
return { 'checkpoint_written', 'none', fmt(now) }
