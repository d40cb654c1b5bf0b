-- list.lua: one page of active leases from a canonical index, in stable (key digest) order.
-- KEYS[1] the index: P{T}:idx:program | P{T}:idx:owner:O | P{T}:idx:target:G
-- ARGV[1] deadline_at ms   ARGV[2] key base 'P{T}:'   ARGV[3] cursor: last key digest returned, or ''
--   ARGV[4] page size   ARGV[5] scan limit (index entries examined at most)   ARGV[6] tenant_id   ARGV[7] program_id
--   ARGV[8] filter: program | owner | target   ARGV[9] owner principal id or target namespace   ARGV[10] target id
--   ARGV[11] history length   ARGV[12] history retention ms
-- Reply: { code, reason, decided_at_ms, next_cursor digest or '', skipped_corrupt count, lease_json... } where each
-- lease is a JSON object of string values (tokens as exact decimal text). Stale index entries (record gone,
-- expired, ended or not matching) are removed and never returned.
local now = now_ms()
if past_deadline(now, ARGV) then return { 'deadline_exceeded', 'none', fmt(now), '', '0' } end
local page_size = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local start = (ARGV[3] == '') and '-' or ('(' .. ARGV[3])
local leases, last, scanned, corrupt = {}, nil, 0, 0
local batch = math.min(page_size + 1, limit)
local more = true
while more and #leases <= page_size and scanned < limit do
  local members = redis.call('ZRANGEBYLEX', KEYS[1], start, '+', 'LIMIT', 0, batch)
  if #members < batch then more = false end
  for _, digest in ipairs(members) do
    if #leases > page_size or scanned >= limit then more = true; break end
    scanned = scanned + 1
    start = '(' .. digest
    local key = ARGV[2] .. 'lease:' .. digest
    local map = (redis.call('TYPE', key)['ok'] == 'hash') and hgetall_map(key) or {}
    local ctx = { base = ARGV[2], digest = digest, history_length = tonumber(ARGV[11]),
      history_ms = tonumber(ARGV[12]), identity = { map['lock_key'], map['tenant_id'], map['program_id'],
        map['target_namespace'], map['target_id'], map['actor_name'], map['workflow_name'], map['operation_class'] } }
    local usable = map['lease_id'] ~= nil and check_record(map, ctx.identity) == nil
      and map['tenant_id'] == ARGV[6] and map['program_id'] == ARGV[7]
    if not usable then
      if map['lease_id'] ~= nil then corrupt = corrupt + 1 else redis.call('ZREM', KEYS[1], digest) end
    elseif now >= iso_to_ms(map['expires_at']) then
      end_lease(ctx, digest, map, 'expired')
    elseif (ARGV[8] == 'owner' and map['owner_principal_id'] ~= ARGV[9])
        or (ARGV[8] == 'target' and (map['target_namespace'] ~= ARGV[9] or map['target_id'] ~= ARGV[10])) then
      redis.call('ZREM', KEYS[1], digest)
    else
      leases[#leases + 1] = cjson.encode(map)
      last = digest
    end
  end
end
local cursor = ''
if #leases > page_size then
  table.remove(leases)
  cursor = ARGV[3]
  -- the cursor is the digest of the last lease on this page
  local last_map = cjson.decode(leases[#leases])
  cursor = string.sub(last_map['lock_key'], string.len('starintel:target-lease:v1:') + 1)
elseif scanned >= limit and more then
  cursor = string.gsub(start, '^%(', '')
end
local out = { 'lease_listed', 'none', fmt(now), cursor, fmt(corrupt) }
for _, text in ipairs(leases) do out[#out + 1] = text end
return out
