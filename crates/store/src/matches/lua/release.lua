-- Lets a finished match's keys go: each one it still has expires ARGV[1] ms from now (or
-- sooner, if it was to expire sooner already). Called once the archive holds the match, so
-- a late watcher or GetMatchRecord still finds it here for that window. Refused (0) for a
-- match that is unknown or not over: a live match is never released.
--
-- KEYS[1] meta  KEYS[2] record  KEYS[3] secret  KEYS[4] log  KEYS[5] open  KEYS[6] views
-- KEYS[7] idem  KEYS[8] snap    KEYS[9] deadline            (all colosseum:{<match>}:...)
-- ARGV[1] the window in ms (> 0)
--
-- Returns 1 released, 0 not.
if redis.call('HEXISTS', KEYS[1], 'over') == 0 and redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
local window = tonumber(ARGV[1])
for i = 1, #KEYS do
  local ttl = redis.call('PTTL', KEYS[i])
  -- -2: no such key; -1: no expiry yet.
  if ttl == -1 or ttl > window then
    redis.call('PEXPIRE', KEYS[i], window)
  end
end
return 1
