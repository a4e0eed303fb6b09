-- Takes a lease that is free (or ran out), or extends it for its holder.
--
-- KEYS[1] colosseum:{lobby}:lease:<name>
-- ARGV[1] the holder; ARGV[2] the time to live (ms)
--
-- Returns 1 if the holder holds it now, else 0.
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
