-- attach.lua: attached keys (docs/attachments.md), the last part of the function library starintel_lease_v2 (after
-- prelude.lua and lease.lua, whose local helpers it uses: begin_mutation, load_held, load_active, remember, refuse,
-- stored).
-- Each function is one atomic step on keys of one program (one hash tag); the argument lists are built by
-- io.starintel.lease.store.redis.AttachArguments (put, delete, get, list).
--
-- Keys: kv:K (hash: o = lease id \31 token of the owning lease, n = attached name, v = value), K = SHA-1 hex of the
-- name (no raw name in a key name); att:<lease id>:<token> (hash: K -> name, the lease's attached keys). Both expire
-- physically at the lease's maximum lifetime + grace (a lease can never outlive it), so keys of a lease whose record
-- vanished without an ending transition cannot leak; get and list never show them (they check the owning lease at
-- backend time) and a put reclaims them. The first put of a lease sets the ATTACHED marker on its record (prelude.lua;
-- SET ... KEEPTTL), and end_lease (lease.lua) then deletes att and every kv it names in the transition.
--
-- Replies (all strings): { code, reason, decided_ms, retry_after_ms [, current_state, replayed '0'|'1', ''] } for put
-- and delete (the longer form is a replay of the stored result); get: { 'attachment_read', 'none', decided_ms, '0',
-- lease id, name, value }; list: { 'attachments_listed', 'none', decided_ms, '0', lease id, name... } (any order).
-- Failures: { code, reason, decided_ms, '0' }.

-- whether the lease (lease id, token) is the active one at backend time: 'active' | 'none' | 'corrupt'. May end it
-- as expired first (load_active), which deletes its attached keys.
local function owner_state(base, p, lease_id, token, now)
  local digest = r_call('GET', base .. 'lid:' .. lease_id)
  if not digest or s_find(digest, SEP, 1, true) then return 'none' end
  local status, r = load_active(base, p, digest, nil, now)
  if status == 'corrupt' then return 'corrupt' end
  if status == 'active' and lease_id_of(r) == lease_id and r.token == token then return 'active', r end
  return 'none'
end

-- attach_put: KEYS lease:D, idem:H. ARGV deadline, base, digest, policy, request digest, holder, token, lease_id,
-- K, name, value, maximum keys per lease.
-- Codes: attachment_stored, lease_lost (stale_lease), lease_conflict (attached_to_another_lease),
-- lease_rate_limited (attached_key_limit_reached), idempotency_conflict, deadline_exceeded, invalid_lease_request,
-- lease_backend_unavailable (corrupt_record).
local function attach_put(keys, args)
  local base, digest, holder, token, lease_id, k = args[2], args[3], args[6], args[7], args[8], args[9]
  local identity = holder_identity(holder)
  local now, p, early = begin_mutation(args, keys[2], args[5], identity)
  if early then return early end
  local r, refused = load_held(base, p, digest, identity, now, holder, token)
  if refused then return refused end
  local kv = base .. 'kv:' .. k
  local att = base .. 'att:' .. lease_id .. ':' .. token
  local mine = lease_id .. SEP .. token
  local owner = r_call('HGET', kv, 'o')
  if owner and owner ~= mine then
    local olid, otoken = s_match(owner, '^(.*)\31(%d+)$')
    local ostate = 'none'
    if olid then ostate = owner_state(base, p, olid, otoken, now) end
    if ostate == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
    if ostate == 'active' then return refuse('lease_conflict', 'attached_to_another_lease', now) end
    -- a leftover of a lease that ended without its transition (its record vanished): reclaim it
    if olid then r_call('HDEL', base .. 'att:' .. olid .. ':' .. otoken, k) end
    r_call('UNLINK', kv)
    owner = nil
  end
  if not owner and r_call('HLEN', att) >= tonumber(args[12]) then
    return refuse('lease_rate_limited', 'attached_key_limit_reached', now)
  end
  local acquired, _, _, _, lifetime = times_of(r)
  local physical = fmt(tonumber(acquired) + tonumber(lifetime) + p.grace - now)
  r_call('HSET', kv, 'o', mine, 'n', args[10], 'v', args[11])
  r_call('PEXPIRE', kv, physical)
  if not owner then
    r_call('HSET', att, k, args[10])
    r_call('PEXPIRE', att, physical)
    if not r.attached then -- the marker that makes end_lease look up the attached keys (prelude.lua: ATTACHED)
      r.attached = true
      r_call('SET', base .. 'lease:' .. digest, stored(r), 'KEEPTTL')
    end
  end
  remember(keys[2], args[5], 'attachment_stored', fmt(now), '', p)
  return refuse('attachment_stored', 'none', now)
end

-- attach_delete: KEYS lease:D, idem:H. ARGV deadline, base, digest, policy, request digest, holder, token, lease_id,
-- K. Codes: attachment_deleted, lease_lost (stale_lease), lease_not_found (attachment_not_found: this lease holds no
-- such key), idempotency_conflict, deadline_exceeded, invalid_lease_request, lease_backend_unavailable.
local function attach_delete(keys, args)
  local base, digest, holder, token, lease_id, k = args[2], args[3], args[6], args[7], args[8], args[9]
  local identity = holder_identity(holder)
  local now, p, early = begin_mutation(args, keys[2], args[5], identity)
  if early then return early end
  local _, refused = load_held(base, p, digest, identity, now, holder, token)
  if refused then return refused end
  local kv = base .. 'kv:' .. k
  if r_call('HGET', kv, 'o') ~= lease_id .. SEP .. token then
    return refuse('lease_not_found', 'attachment_not_found', now)
  end
  r_call('UNLINK', kv)
  r_call('HDEL', base .. 'att:' .. lease_id .. ':' .. token, k)
  remember(keys[2], args[5], 'attachment_deleted', fmt(now), '', p)
  return refuse('attachment_deleted', 'none', now)
end

-- attach_get: KEYS kv:K. ARGV deadline, base, policy.
-- Codes: attachment_read (lease id, name, value), lease_not_found (attachment_not_found: none, or its lease is not
-- active), deadline_exceeded, lease_backend_unavailable (corrupt_record).
local function attach_get(keys, args)
  local now = now_ms()
  if now > tonumber(args[1]) then return refuse('deadline_exceeded', 'none', now) end
  local base, p = args[2], policy(args[3])
  local f = r_call('HMGET', keys[1], 'o', 'n', 'v')
  if not f[1] or not f[2] or not f[3] then return refuse('lease_not_found', 'attachment_not_found', now) end
  local olid, otoken = s_match(f[1], '^(.*)\31(%d+)$')
  if not olid then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  local state = owner_state(base, p, olid, otoken, now)
  if state == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if state ~= 'active' then return refuse('lease_not_found', 'attachment_not_found', now) end
  return { 'attachment_read', 'none', fmt(now), '0', olid, f[2], f[3] }
end

-- attach_list: KEYS lid:<lease id>. ARGV deadline, base, policy, lease_id.
-- Codes: attachments_listed (lease id, names), lease_not_found (the lease is not active), deadline_exceeded,
-- lease_backend_unavailable (corrupt_record).
local function attach_list(keys, args)
  local now = now_ms()
  if now > tonumber(args[1]) then return refuse('deadline_exceeded', 'none', now) end
  local base, p, lease_id = args[2], policy(args[3]), args[4]
  local digest = r_call('GET', keys[1])
  if not digest or s_find(digest, SEP, 1, true) then return refuse('lease_not_found', 'none', now) end
  local status, r = load_active(base, p, digest, nil, now)
  if status == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if status ~= 'active' or lease_id_of(r) ~= lease_id then return refuse('lease_not_found', 'none', now) end
  local out = { 'attachments_listed', 'none', fmt(now), '0', lease_id }
  for _, name in ipairs(r_call('HVALS', base .. 'att:' .. lease_id .. ':' .. r.token)) do out[#out + 1] = name end
  return out
end

register('attach_put', attach_put)
register('attach_delete', attach_delete)
register('attach_get', attach_get)
register('attach_list', attach_list)
