-- Stores a snapshot unless the match is unknown or one at the same or a later version exists.
--
-- KEYS[1] colosseum:{<match>}:snap   KEYS[2] colosseum:{<match>}:log
-- KEYS[3] colosseum:{<match>}:open
-- ARGV[1] the snapshot's version; ARGV[2] its bytes
--
-- Returns 1 if stored, else 0.
if redis.call('EXISTS', KEYS[2], KEYS[3]) == 0 then
  return 0
end
local stored = redis.call('HGET', KEYS[1], 'v')
if stored and tonumber(stored) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'b', ARGV[2])
return 1
