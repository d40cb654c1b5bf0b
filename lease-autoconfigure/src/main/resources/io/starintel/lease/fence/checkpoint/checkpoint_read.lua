-- checkpoint_read.lua: the stored checkpoint of one identity (RedisCheckpointStore.read).
-- KEYS[1] P{T}:checkpoint:D   ARGV: none
-- Reply: { backend time ms, field1, value1, ... } (no fields: no checkpoint)
local t = redis.call('TIME')
local out = { string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) }
for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do out[#out + 1] = v end
return out
