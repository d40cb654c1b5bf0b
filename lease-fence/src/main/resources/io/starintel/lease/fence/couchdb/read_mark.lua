-- read_mark.lua: what a fenced CouchDB read compares a document with (FencedCouchDbReader): the document's durable
-- mark and the fencing counter of its lock identity (the highest token the lease store ever issued for it).
-- KEYS[1] P{T}:couchdb:marks (see mark.lua)
-- ARGV[1] F (the document's field)   ARGV[2] the identity digest to use when no mark is stored (the winner's)
-- ARGV[3] the prefix of the lease store's fence hash (RedisKeys.fence(""): P{T}:fence:), completed with the digest
--         (same hash tag, same slot); its field 'counter' is the last issued token
-- Reply: { mark digest | '', mark token | '', counter | '' } (all decimal text)
local digest, token = '', ''
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then
  local d, t = string.match(stored, '^(%S+) (%d+)$')
  if d then digest, token = d, t end
end
local identity = (digest ~= '') and digest or ARGV[2]
local counter = ''
if identity ~= '' then counter = redis.call('HGET', ARGV[3] .. identity, 'counter') or '' end
return { digest, token, counter }
