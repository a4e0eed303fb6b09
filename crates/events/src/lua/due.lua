-- The deadlines due by a time, earliest first, each with its fence: one round trip.
--
-- KEYS[1] colosseum:deadlines   KEYS[2] colosseum:deadline-fences
-- ARGV[1] now (Unix ms); ARGV[2] the most to return
--
-- Returns a flat array: match id, due ms, fence version ('' if missing), ...
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
local out = {}
for i = 1, #due, 2 do
  out[#out + 1] = due[i]
  out[#out + 1] = due[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], due[i]) or ''
end
return out
