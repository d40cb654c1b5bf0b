-- mark.lua: raises the durable mark of one fenced CouchDB document after an accepted write (FencedCouchDbConnector).
-- The mark survives anything done to the document in CouchDB (_purge included), so a fenced read can tell a stale
-- re-creation from the current document. A mark never goes down and never changes its lock identity.
-- KEYS[1] P{T}:couchdb:marks  hash: field = F (unpadded base64url SHA-256 of database + "\n" + document id),
--                             value = '<lock_key_digest> <fencing_token>'; never deleted
-- ARGV[1] F   ARGV[2] lock_key_digest   ARGV[3] fencing_token (decimal text)
-- Reply: { 'raised' | 'kept' | 'identity_differs', stored digest, stored token (decimal text) }
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then
  local digest, token = string.match(stored, '^(%S+) (%d+)$')
  if digest and digest ~= ARGV[2] then return { 'identity_differs', digest, token } end
  if digest and tonumber(token) >= tonumber(ARGV[3]) then return { 'kept', digest, token } end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
return { 'raised', ARGV[2], ARGV[3] }
