-- resolve.lua: the committed result of an earlier mutating request, looked up by its idempotency key.
-- KEYS[1] P{T}:lease:D   KEYS[2] P{T}:idem:H
-- ARGV[1..13] the shared identity layout (see prelude.lua); no operation arguments.
-- Reply: the single-lease shape: the stored result marked replayed with the lease's current state, or
-- lease_not_found when nothing was committed; deadline_exceeded.
local now = now_ms()
if past_deadline(now, ARGV) then return reply('deadline_exceeded', 'none', now, false, nil, 0, nil) end
local ctx = context(ARGV)
local replayed = replay(ctx, now, KEYS[2], nil)
if replayed then return replayed end
return reply('lease_not_found', 'none', now, false, nil, 0, nil)
