-- Removes a match's armed deadline only if its fence is still the given one.
--
-- KEYS[1] colosseum:{<match>}:deadline
-- ARGV[1] the fence version
--
-- Returns the removed deadline's due time (ms, as stored), or false if nothing was removed.
local due = redis.call('HGET', KEYS[1], 'due')
if due and redis.call('HGET', KEYS[1], 'fence') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return due
end
return false
