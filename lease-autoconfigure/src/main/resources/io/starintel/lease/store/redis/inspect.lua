-- inspect.lua: the active lease of one identity at backend time.
-- KEYS[1] P{T}:lease:D
-- ARGV[1..13] the shared identity layout (see prelude.lua); no operation arguments.
-- Reply: the single-lease shape. Codes: lease_inspected (with the record), lease_not_found, deadline_exceeded,
-- lease_backend_unavailable (corrupt_record).
local now = now_ms()
if past_deadline(now, ARGV) then return reply('deadline_exceeded', 'none', now, false, nil, 0, nil) end
local ctx = context(ARGV)
local status, map = load_active(ctx, now)
if status == 'corrupt' then return corrupt_reply(now) end
if status ~= 'active' then return reply('lease_not_found', 'none', now, false, nil, 0, nil) end
return reply('lease_inspected', 'none', now, false, 'active', 0, map)
