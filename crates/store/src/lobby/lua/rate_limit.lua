-- Counts a hit in a fixed window that starts at the bucket's first hit.
--
-- KEYS[1] colosseum:{lobby}:rl:<bucket>
-- ARGV[1] the window (ms); ARGV[2] the limit
--
-- Returns -1 within the limit, else the ms until the window ends (at least 1).
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
if hits <= tonumber(ARGV[2]) then
  return -1
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  -- A counter without an expiry would limit forever: start its window now.
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
if left < 1 then
  left = 1
end
return left
