-- Removes a match's deadline only if its fence is still the given one.
--
-- KEYS[1] colosseum:deadlines   KEYS[2] colosseum:deadline-fences
-- ARGV[1] the match id; ARGV[2] the fence version
--
-- Returns 1 if removed, else 0.
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
