-- consume.lua: the consumer-side fence of RabbitMQ deliveries (FencedListenerAdvice). Accepts a message only if its
-- fencing token is not below the high-water mark already accepted for its lock identity, and raises the mark;
-- rejects lower tokens. Contract: "reject a token lower than the durable high-water mark already observed for that
-- identity". RabbitMQ delivery metadata is never proof of ownership: this orders accepted effects, the publish-side
-- authorization (FenceGuard) is the ownership check.
-- KEYS[1] starintel:target-lease:v1:{T}:consumed:D  (T = the consumer's program hash tag, D = the message's
--         lock-key digest header; hash fields hwm, lease_id, accepted_at_ms; never deleted)
-- ARGV[1] fencing token (decimal text)  ARGV[2] lease id
-- Reply: { 'accepted' | 'rejected' | 'corrupt', high-water mark after the decision (decimal text) or '' }
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stored = redis.call('HGET', KEYS[1], 'hwm')
if stored and not string.match(stored, '^%d+$') then return { 'corrupt', '' } end
local token = tonumber(ARGV[1])
if stored and token < tonumber(stored) then return { 'rejected', stored } end
if not stored or token > tonumber(stored) then
  redis.call('HSET', KEYS[1], 'hwm', ARGV[1], 'lease_id', ARGV[2], 'accepted_at_ms', string.format('%.0f', now))
  return { 'accepted', ARGV[1] }
end
return { 'accepted', stored }
