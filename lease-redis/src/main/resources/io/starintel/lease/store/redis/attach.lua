-- attach.lua: attached keys (docs/attachments.md) of the function library starintel_lease_v3 (after prelude.lua and
-- lease.lua, whose local helpers it uses). Each function is one atomic step on keys of one program (one hash tag);
-- the argument lists are built by io.starintel.lease.store.redis.AttachArguments (put, delete, get, list).
--
-- Keys: kv:K (hash: o = lease id SEP token of the owning lease, n = attached name, v = value), K = SHA-1 hex of the
-- name (no raw name in a key name); att:<lease id>:<token> (hash: K -> name, the lease's attached keys). Both expire
-- physically at the lease's maximum lifetime + grace (a lease can never outlive it), so keys of a lease whose state
-- vanished without an ending transition cannot leak; get and list never show them (they check the owning lease at
-- backend time) and a put reclaims them. The first put of a lease sets a = '1' in its identity hash, and end_lease
-- (lease.lua) then deletes att and every kv it names in the transition, in chunks.
--
-- Replies (all strings): { code, reason, decided_ms, retry_after_ms [, current_state, replayed '0'|'1', ''] } for put
-- and delete (the longer form is a replay of the stored result); get: { 'attachment_read', 'none', decided_ms, '0',
-- lease id, name, value }; list: { 'attachments_listed', 'none', decided_ms, '0', lease id, name... } (any order).

-- the identity D of a lease id in base's program (its acquire's result, or its v2 lid key while active), or nil
local function digest_of_lease(base, lease_id)
  local key = acquire_result_key(base, lease_id)
  if key then
    local text = r_call('GET', key)
    return text and s_match(text, '^3a\31[^\31]*\31[^\31]*\31[^\31]*\31([^\31]+)\31') or nil
  end
  local text = r_call('GET', base .. 'lid:' .. lease_id)
  if text and not s_find(text, SEP, 1, true) then return text end
  return nil
end

-- whether the lease (lease id, token) is the active one at backend time: 'active' | 'none' | 'corrupt'. May end it
-- as expired first, which deletes its attached keys.
local function owner_state(base, p, lease_id, token, now, recovery)
  local digest = digest_of_lease(base, lease_id)
  if not digest then return 'none' end
  local id, refused = prepare(identity_key(base, digest), base, digest, nil, p, now, recovery, nil, nil)
  if refused then return (refused[2] == 'recovery_required') and 'recovery' or 'corrupt' end
  if id.status == 'active' and lease_id_of(id.r) == lease_id and id.r.token == token then return 'active' end
  return 'none'
end

-- the common start of attach_put and attach_delete (KEYS l:D, idem:H, audit; ARGV deadline, digest, policy, request
-- digest, holder, token, ...): the deadline rule, the exact holder (load_held), then a replay of the request's stored
-- result. Returns the reply to answer at once, or nil and the identity, the policy and the key base.
local function held_for_change(keys, args, now, recovery, audit_length)
  local p = policy(args[3])
  local late = deadline_refusal(args[1], now, p.max_deadline)
  if late then return refuse(late, 'none', now) end
  local base = base_of_identity_key(keys[1], args[2])
  local id, refused = load_held(keys[1], base, args[2], args[5], args[6], p, now, recovery, keys[3], audit_length)
  if refused then return (id and replay(id, p, now, keys[2], args[4])) or refused end
  local early = replay(id, p, now, keys[2], args[4])
  if early then return early end
  return nil, id, p, base
end

-- attach_put: KEYS l:D, idem:H, audit. ARGV deadline, digest, policy, request digest, holder, token, lease_id, K,
-- name, value, maximum keys per lease, recovery, audit_length.
-- Codes: attachment_stored, lease_lost (stale_lease), lease_conflict (attached_to_another_lease),
-- lease_rate_limited (attached_key_limit_reached), idempotency_conflict, deadline_exceeded, invalid_lease_request,
-- lease_backend_unavailable (corrupt_record | recovery_required).
local function attach_put(keys, args, now)
  now = now or now_ms()
  local answer, id, p, base = held_for_change(keys, args, now, args[12], args[13])
  if answer then return answer end
  local lease_id, token, k = args[7], args[6], args[8]
  local kv = base .. 'kv:' .. k
  local att = base .. 'att:' .. lease_id .. ':' .. token
  local mine = lease_id .. SEP .. token
  local owner = r_call('HGET', kv, 'o')
  if owner and owner ~= mine then
    local olid, otoken = s_match(owner, '^(.*)\31(%d+)$')
    local ostate = 'none'
    if olid then ostate = owner_state(base, p, olid, otoken, now, args[12]) end
    if ostate == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
    if ostate == 'recovery' then
      return refuse('lease_backend_unavailable', 'recovery_required', now, RECOVERY_RETRY_MS)
    end
    if ostate == 'active' then return refuse('lease_conflict', 'attached_to_another_lease', now) end
    -- a leftover of a lease that ended without its transition (its state vanished): reclaim it
    if olid then r_call('HDEL', base .. 'att:' .. olid .. ':' .. otoken, k) end
    r_call('UNLINK', kv)
    owner = nil
  end
  if not owner and r_call('HLEN', att) >= args[11] + 0 then
    return refuse('lease_rate_limited', 'attached_key_limit_reached', now)
  end
  local physical = fmt(id.r.acquired + id.r.lifetime + p.grace - now)
  r_call('HSET', kv, 'o', mine, 'n', args[9], 'v', args[10])
  r_call('PEXPIRE', kv, physical)
  if not owner then
    r_call('HSET', att, k, args[9])
    r_call('PEXPIRE', att, physical)
  end
  -- the marker that makes end_lease look up the attached keys, and the epoch stamp
  r_call('HSET', keys[1], unpack(stamp_fields(id, { 'a', '1' })))
  remember(keys[2], result_text('-', args[4], 'attachment_stored', fmt(now), '', ''), p)
  return refuse('attachment_stored', 'none', now)
end

-- attach_delete: KEYS l:D, idem:H, audit. ARGV deadline, digest, policy, request digest, holder, token, lease_id, K,
-- recovery, audit_length. Codes: attachment_deleted, lease_lost (stale_lease), lease_not_found (attachment_not_found:
-- this lease holds no such key), idempotency_conflict, deadline_exceeded, invalid_lease_request,
-- lease_backend_unavailable.
local function attach_delete(keys, args, now)
  now = now or now_ms()
  local answer, _, p, base = held_for_change(keys, args, now, args[9], args[10])
  if answer then return answer end
  local lease_id, token, k = args[7], args[6], args[8]
  local kv = base .. 'kv:' .. k
  if r_call('HGET', kv, 'o') ~= lease_id .. SEP .. token then
    return refuse('lease_not_found', 'attachment_not_found', now)
  end
  r_call('UNLINK', kv)
  r_call('HDEL', base .. 'att:' .. lease_id .. ':' .. token, k)
  remember(keys[2], result_text('-', args[4], 'attachment_deleted', fmt(now), '', ''), p)
  return refuse('attachment_deleted', 'none', now)
end

-- attach_get: KEYS kv:K. ARGV deadline, base, policy, recovery.
-- Codes: attachment_read (lease id, name, value), lease_not_found (attachment_not_found: none, or its lease is not
-- active), deadline_exceeded, lease_backend_unavailable (corrupt_record | recovery_required).
local function attach_get(keys, args, now)
  now = now or now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return refuse(late, 'none', now) end
  local base, p = args[2], policy(args[3])
  local f = r_call('HMGET', keys[1], 'o', 'n', 'v')
  if not f[1] or not f[2] or not f[3] then return refuse('lease_not_found', 'attachment_not_found', now) end
  local olid, otoken = s_match(f[1], '^(.*)\31(%d+)$')
  if not olid then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  local state = owner_state(base, p, olid, otoken, now, args[4])
  if state == 'corrupt' then return refuse('lease_backend_unavailable', 'corrupt_record', now) end
  if state == 'recovery' then return refuse('lease_backend_unavailable', 'recovery_required', now, RECOVERY_RETRY_MS) end
  if state ~= 'active' then return refuse('lease_not_found', 'attachment_not_found', now) end
  return { 'attachment_read', 'none', fmt(now), '0', olid, f[2], f[3] }
end

-- attach_list: KEYS the lease's acquire result idem:H (v3) or lid key (v2). ARGV deadline, base, policy, lease_id,
-- recovery. Codes: attachments_listed (lease id, names), lease_not_found (the lease is not active),
-- deadline_exceeded, lease_backend_unavailable (corrupt_record | recovery_required).
local function attach_list(keys, args, now)
  now = now or now_ms()
  local late = deadline_refusal(args[1], now, nil)
  if late then return refuse(late, 'none', now) end
  local base, p, lease_id = args[2], policy(args[3]), args[4]
  local digest = digest_of_lease(base, lease_id)
  if not digest then return refuse('lease_not_found', 'none', now) end
  local id, refused = prepare(identity_key(base, digest), base, digest, nil, p, now, args[5], nil, nil)
  if refused then return refused end
  if id.status ~= 'active' or lease_id_of(id.r) ~= lease_id then return refuse('lease_not_found', 'none', now) end
  local out = { 'attachments_listed', 'none', fmt(now), '0', lease_id }
  for _, name in ipairs(r_call('HVALS', base .. 'att:' .. lease_id .. ':' .. id.r.token)) do out[#out + 1] = name end
  return out
end

register('attach_put', attach_put)
register('attach_delete', attach_delete)
register('attach_get', attach_get)
register('attach_list', attach_list)
